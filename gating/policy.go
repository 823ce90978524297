package gating

import (
	"fmt"
	"strings"
)

// Policy is the engine's configuration: the modes and every configurable list of SPEC §3.
// internal/config builds it from the user's configuration; DefaultPolicy is the single source
// of the defaults.
type Policy struct {
	Mode         Mode // read gate: off, warn (default), block
	RecoveryMode Mode // recovery gate: default block
	DocFirstMode Mode // Doc-First gate: default warn

	// SensitivePaths are path patterns that make a write high risk. A pattern matches on whole
	// path segments: "auth/" matches a directory segment named auth anywhere, "package.json" a
	// file name, "*.pem" a file-name glob, ".env*" a glob, "infra/terraform/" a segment sequence.
	SensitivePaths []string
	// SafePaths are patterns that keep a single-file write low risk (progress.md, learnings/, …).
	SafePaths []string
	// SatisfyReads are canonical paths whose successful read satisfies the context requirement.
	SatisfyReads []string
	// ReaderAgents are subagent types whose call satisfies context and clears recovery.
	ReaderAgents []string
	// AnchorPrefixes are canonical path prefixes (or exact files) that are recovery anchors.
	AnchorPrefixes []string
	// FallbackAnchors are always added to the anchors on compaction, when they exist.
	FallbackAnchors []string
	// AnchorLRU is how many tracked anchors a session keeps (the most recent).
	AnchorLRU int
	// ShellMarkdownWrites allows shell writes of .md files into memory-bank/ (default false).
	ShellMarkdownWrites bool
	// AllowedBankFiles are non-.md file names that may be written into memory-bank/ (.gitkeep).
	AllowedBankFiles []string
	// ProtectedPaths are repository-relative paths agents may not write (mbguard's own
	// configuration and hooks); the default is ProtectedPaths.
	ProtectedPaths []string
	// MaxBankFile is the largest content, in bytes, a write may give a memory-bank/ file (0:
	// no limit). It matches the size `mbguard check` refuses at commit, so a file that could
	// never be committed is refused when written, before its markers and secrets are scanned.
	MaxBankFile int
}

// DefaultPolicy returns the defaults from the seeds, extended as SPEC §3 asks.
func DefaultPolicy() Policy {
	return Policy{
		Mode:         ModeWarn,
		RecoveryMode: ModeBlock,
		DocFirstMode: ModeWarn,
		MaxBankFile:  10 << 20, // scanner.MaxFileSize
		SensitivePaths: []string{
			// auth and security code (seed 000: src/auth/, src/security/)
			"auth/", "authn/", "authz/", "security/", "sso/", "oauth/", "iam/", "permissions/", "crypto/", "secrets/",
			// dependency manifests and lockfiles (seed 000: package.json, tsconfig.json)
			"package.json", "package-lock.json", "npm-shrinkwrap.json", "yarn.lock", "pnpm-lock.yaml", "pnpm-workspace.yaml",
			"bun.lockb", "bun.lock", ".npmrc", ".yarnrc.yml", "tsconfig.json", "tsconfig.*.json",
			"go.mod", "go.sum", "go.work", "go.work.sum", "Cargo.toml", "Cargo.lock",
			"pyproject.toml", "poetry.lock", "uv.lock", "pdm.lock", "Pipfile", "Pipfile.lock", "requirements*.txt", "setup.py", "setup.cfg",
			"Gemfile", "Gemfile.lock", "composer.json", "composer.lock", "pom.xml", "build.gradle", "build.gradle.kts",
			"*.lockfile", "*.csproj", "*.fsproj", "*.vbproj", "packages.lock.json", "Directory.Packages.props",
			// CI (seed 000 left it out; a broken pipeline is as costly as a broken build)
			".github/workflows/", ".github/actions/", ".gitlab-ci.yml", ".gitlab/", ".circleci/", ".buildkite/", "Jenkinsfile",
			"azure-pipelines.yml", "bitbucket-pipelines.yml", ".travis.yml", ".pre-commit-config.yaml",
			// containers and infrastructure (seed 000: docker/, infra/)
			"docker/", "Dockerfile", "Dockerfile.*", "*.Dockerfile", "docker-compose*.yml", "docker-compose*.yaml",
			"compose.yml", "compose.yaml", "infra/", "terraform/", "*.tf", "*.tfvars", "k8s/", "kubernetes/", "helm/",
			"charts/", "ansible/", "deploy/", "Pulumi.yaml",
			// secrets, keys and certificates
			".env*", "*.pem", "*.key", "*.p12", "*.pfx", "*.crt", "*.cer", "*.jks", "*.keystore", "*.gpg",
			"id_rsa*", "id_ecdsa*", "id_ed25519*", ".ssh/", ".pypirc", ".netrc", "credentials*",
			// database migrations
			"migrations/",
		},
		SafePaths: []string{
			"memory-bank/details/progress.md", "memory-bank/details/learnings/",
			"memory-bank/details/requirements/", "index.md",
		},
		SatisfyReads:     []string{"memory-bank/details/patterns.md"},
		ReaderAgents:     []string{"memory-reader"},
		AnchorPrefixes:   []string{"memory-bank/details/requirements/", "memory-bank/details/design/", "memory-bank/details/progress.md"},
		FallbackAnchors:  []string{"memory-bank/MEMORY.md", "memory-bank/details/patterns.md"},
		AnchorLRU:        5,
		AllowedBankFiles: []string{".gitkeep"},
		ProtectedPaths:   append([]string(nil), ProtectedPaths...),
	}
}

// ParseMode reads a mode case-insensitively ("Block", " warn "). An unknown value is an error,
// never a silent default: the configuration layer reports it.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(strings.ToLower(strings.TrimSpace(s))); m {
	case ModeOff, ModeWarn, ModeBlock:
		return m, nil
	}
	return "", fmt.Errorf("mode %q: want off, warn or block", s)
}
