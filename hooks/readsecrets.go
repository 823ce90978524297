package hooks

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mbguard/mbguard/bank"
	"github.com/mbguard/mbguard/gating"
	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/scanner"
)

// maxReadScan bounds a bank file scanned for secrets after a call read it; a larger one is
// left to `mbguard check`.
const maxReadScan = 4 << 20

// readSecrets finds the secrets in the bank files a finished tool call named (a read tool's
// file, the files a shell command names), so that what the call returned to the model can be
// redacted where the host lets a hook replace it, and the model told where it cannot. The
// notice gives the file, line and gitleaks rule, never the secret; secrets are the secret texts
// themselves, for redaction only.
//
// A host without a post-tool event (Crush) is told at the pre-tool event of a call it lets run:
// what the file holds is known before the call reads it.
func readSecrets(c *hookCall, repos []repo.Repo, ans *hookAnswer) (notice string, secrets []string) {
	after := c.Kind == callPostTool || c.NoPost && c.Kind == callPreTool && ans.Deny == ""
	if !after || c.Args == nil || !filepath.IsAbs(c.Cwd) {
		return "", nil
	}
	var lines []string
	seen := map[string]bool{}
	var output *string // the call's output as text, decoded on first need
	outText := func() string {
		if output == nil {
			s := outputText(c)
			output = &s
		}
		return *output
	}
	dets := map[string]*scanner.Secrets{} // one detector per repository
	scan := func(r repo.Repo, rel, p string, inOutput bool) {
		if seen[r.Root+"\x00"+rel] {
			return
		}
		seen[r.Root+"\x00"+rel] = true
		fi, err := os.Stat(p)
		if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxReadScan {
			return
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return
		}
		det := dets[r.Root]
		if det == nil {
			det = scanner.NewSecrets(r.Root)
			dets[r.Root] = det
		}
		fs, err := det.ScanCached(r.StateDir(), rel, b)
		if err != nil {
			return // a broken .gitleaks.toml is reported by `mbguard check` and doctor
		}
		for _, f := range fs {
			if f.Start < 0 || f.End > len(b) || f.Start >= f.End {
				continue
			}
			sec := string(b[f.Start:f.End])
			if inOutput && !strings.Contains(outText(), sec) {
				continue
			}
			lines = append(lines, fmt.Sprintf("%s line %d holds a secret (gitleaks rule %s)", rel, f.Line, f.Rule))
			secrets = append(secrets, sec)
		}
	}
	for _, p := range targetFiles(c) {
		for _, r := range repos {
			if rel, ok := bankRel(r, p); ok {
				if fi, err := os.Stat(p); err == nil && fi.IsDir() {
					if outText() != "" {
						walkBank(r, p, func(rel, file string) { scan(r, rel, file, true) })
					}
				} else {
					scan(r, rel, p, false)
				}
				continue
			}
			if outText() != "" && holdsBank(r, p) {
				// a directory above the bank (grep -r at the root): only the files whose
				// secrets the output shows
				walkBank(r, r.BankDir(), func(rel, file string) { scan(r, rel, file, true) })
			}
		}
	}
	if len(lines) == 0 {
		return "", nil
	}
	notice = "[mbguard] " + strings.Join(lines, "; ") +
		". Do not repeat it anywhere; remove it from the file and keep only where the secret lives (a vault, an environment variable name)."
	return notice, secrets
}

// maxBankWalk bounds the bank files scanned for one call that names a directory.
const maxBankWalk = 256

// walkBank calls fn for the regular files under dir (in r's bank), at most maxBankWalk.
func walkBank(r repo.Repo, dir string, fn func(rel, file string)) {
	n := 0
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || n >= maxBankWalk {
			return filepath.SkipDir
		}
		if !d.Type().IsRegular() {
			return nil
		}
		if rel, ok := bankRel(r, p); ok {
			n++
			fn(rel, p)
		}
		return nil
	})
}

// holdsBank reports whether p is a directory r's memory bank lies in (the repository root, say).
func holdsBank(r repo.Repo, p string) bool {
	fi, err := os.Stat(p)
	if err != nil || !fi.IsDir() {
		return false
	}
	for _, q := range []string{p, resolveExisting(p)} {
		rel, err := filepath.Rel(q, r.BankDir())
		if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// outputText is everything a post-tool call returned, as text: the host's output and every
// string in its raw response.
func outputText(c *hookCall) string {
	var b strings.Builder
	b.WriteString(c.Output)
	var v any
	if len(c.Response) > 0 && json.Unmarshal(c.Response, &v) == nil {
		var walk func(v any)
		walk = func(v any) {
			switch v := v.(type) {
			case string:
				b.WriteString("\n")
				b.WriteString(v)
			case []any:
				for _, x := range v {
					walk(x)
				}
			case map[string]any:
				for _, x := range v {
					walk(x)
				}
			}
		}
		walk(v)
	}
	return b.String()
}

// targetFiles are the absolute paths a post-tool call names: the file a read tool reported it
// read, and every path its arguments name (shell commands through the classifier).
func targetFiles(c *hookCall) []string {
	cwd := filepath.ToSlash(c.Cwd)
	var out []string
	if c.ReadPath != "" {
		p := c.ReadPath
		if !filepath.IsAbs(p) {
			p = filepath.Join(c.Cwd, p)
		}
		out = append(out, filepath.Clean(p))
	}
	for _, t := range gating.TargetPaths(c.Tool, c.Args, cwd) {
		out = append(out, filepath.FromSlash(t))
	}
	return out
}

// bankRel is p relative to r's root ("memory-bank/…", slash-separated) when p lies in r's
// memory bank, through symlinks too.
func bankRel(r repo.Repo, p string) (string, bool) {
	for _, q := range []string{p, resolveExisting(p)} {
		rel, err := filepath.Rel(r.Root, q)
		if err != nil {
			continue
		}
		rel = filepath.ToSlash(rel)
		if strings.HasPrefix(rel, bank.Dir+"/") {
			return rel, true
		}
	}
	return "", false
}

// redactJSON returns raw (a host's tool response) with every occurrence of a secret in its
// strings replaced by "REDACTED", and whether anything was replaced.
func redactJSON(raw json.RawMessage, secrets []string) (any, bool) {
	if len(raw) == 0 || len(secrets) == 0 {
		return nil, false
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return nil, false
	}
	changed := false
	var walk func(v any) any
	walk = func(v any) any {
		switch v := v.(type) {
		case string:
			s := redactString(v, secrets)
			if s != v {
				changed = true
			}
			return s
		case []any:
			for i := range v {
				v[i] = walk(v[i])
			}
		case map[string]any:
			for k := range v {
				v[k] = walk(v[k])
			}
		}
		return v
	}
	v = walk(v)
	return v, changed
}

// redactString replaces every occurrence of each secret in s by "REDACTED" (the word
// scanner.Redact uses).
func redactString(s string, secrets []string) string {
	for _, sec := range secrets {
		if sec != "" && strings.Contains(s, sec) {
			s = strings.ReplaceAll(s, sec, "REDACTED")
		}
	}
	return s
}
