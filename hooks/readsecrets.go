package hooks

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mbguard/mbguard/bank"
	"github.com/mbguard/mbguard/gating"
	"github.com/mbguard/mbguard/gating/shell"
	"github.com/mbguard/mbguard/host"
	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/scanner"
)

// secretWay is how a host's protocol keeps a bank secret a tool call reads from the model:
// host.Secrets, named here for the code that acts on it. Each host's way is in its host.Spec,
// verified against the real hosts (docs/hosts/secrets.md).
type secretWay = host.Secrets

const (
	secretTell    = host.Tell
	secretUpdate  = host.Update
	secretReplace = host.Replace
	secretRefuse  = host.Refuse
)

// secretWayOf is host name's way; an unknown host is told only.
func secretWayOf(name string) secretWay { return host.Get(name).Secrets }

// bankSecret is one gitleaks finding in a bank file.
type bankSecret struct {
	rel, rule string
	line      int
	secret    string
}

func (s bankSecret) String() string {
	return scanner.ReadSecret{Rule: s.rule, Line: s.line}.Where(s.rel)
}

// secretScan scans bank files for secrets, each file once, with one detector per repository.
type secretScan struct {
	seen  map[string]bool
	call  *hookCall                       // whose detectors it uses
	banks map[string][]scanner.BankSecret // every secret of each repository's bank (bank)
}

// newSecretScan scans for call c, with its detectors (hookCall.detector).
func newSecretScan(c *hookCall) *secretScan {
	return &secretScan{seen: map[string]bool{}, call: c}
}

// file returns the findings in bank file p (rel in r) and its content; nil for a file already
// scanned, missing, not regular or over scanner.MaxReadScan.
func (s *secretScan) file(r repo.Repo, rel, p string) ([]bankSecret, []byte) {
	if s.seen[r.Root+"\x00"+rel] {
		return nil, nil
	}
	s.seen[r.Root+"\x00"+rel] = true
	fs, b := s.detector(r).ScanRead(r.StateDir(), rel, p)
	out := make([]bankSecret, len(fs))
	for i, f := range fs {
		out[i] = bankSecret{rel: rel, rule: f.Rule, line: f.Line, secret: f.Secret}
	}
	return out, b
}

// readSecrets finds the secrets in the bank files a finished tool call named (a read tool's
// file, the files a shell command names), so that what the call returned to the model can be
// redacted where the host lets a hook replace it, and the model told where it cannot. The
// notice gives the file, line and gitleaks rule, never the secret; secrets are the secret texts
// themselves, for redaction only.
//
// A host without a post-tool event that cannot refuse (none so far) is told at the pre-tool
// event of a call it lets run: what the file holds is known before the call reads it.
func readSecrets(c *hookCall, repos []repo.Repo, ans *hookAnswer, way secretWay) (notice string, secrets []string) {
	if !readIsOver(c, ans, way) || c.Args == nil || !filepath.IsAbs(c.Cwd) {
		return "", nil
	}
	rd := &readScan{c: c, sc: newSecretScan(c)}
	targets := targetFiles(c)
	if sweepsCwd(c, targets) {
		targets = append(targets, filepath.Clean(c.Cwd))
	}
	for _, p := range targets {
		rd.target(p, repos)
	}
	if rd.output() != "" {
		// by content: whatever the call read (a search above the bank, a copy of a bank file
		// in /tmp, a note quoting one), the secrets of the bank its output shows
		for _, r := range repos {
			walkBank(r, r.BankDir(), func(rel, file string) { rd.scan(r, rel, file, true) })
		}
	}
	if len(rd.lines) == 0 {
		return "", nil
	}
	return scanner.ReadNotice(rd.lines), rd.secrets
}

// readIsOver reports whether what the call reads is decided: after it ran, or, on a host
// without a post-tool event that cannot refuse, once its pre-tool event lets it run.
func readIsOver(c *hookCall, ans *hookAnswer, way secretWay) bool {
	return c.Kind == callPostTool || c.NoPost && way != secretRefuse && c.Kind == callPreTool && ans.Deny == ""
}

// readScan gathers the secrets a finished call read: the notice's lines, and each secret in
// every form a command may re-encode it to.
type readScan struct {
	c       *hookCall
	sc      *secretScan
	text    *string // the call's output as text, decoded on first need
	lines   []string
	secrets []string
}

func (rd *readScan) output() string {
	if rd.text == nil {
		s := outputText(rd.c)
		rd.text = &s
	}
	return *rd.text
}

// target scans the bank file p names in each repository; a bank folder counts by what of its
// files the output shows.
func (rd *readScan) target(p string, repos []repo.Repo) {
	for _, r := range repos {
		rel, ok := bankRel(r, p)
		if !ok {
			continue
		}
		if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
			rd.scan(r, rel, p, false)
		} else if rd.output() != "" {
			walkBank(r, p, func(rel, file string) { rd.scan(r, rel, file, true) })
		}
	}
}

// scan adds the secrets of one bank file; inOutput: only those the call's output shows.
func (rd *readScan) scan(r repo.Repo, rel, p string, inOutput bool) {
	found, _ := rd.sc.file(r, rel, p)
	for _, f := range found {
		forms := scanner.SecretForms(f.secret) // a command may re-encode what it read
		if inOutput && !scanner.ShowsAny(rd.output(), forms) {
			continue
		}
		rd.lines = append(rd.lines, f.String())
		rd.secrets = append(rd.secrets, forms...)
	}
}

// sweepsCwd reports whether a read or search call's output may show bank files its targets do
// not name: it names no path (a search of where it runs: Claude Code's Grep with no path) or
// a glob no hook can expand before the call (Gemini CLI's read_many_files `memory-bank/**/*.md`,
// a Grep glob). Its output is then judged against every bank file under its working directory.
// A shell call always names its working directory (gating.TargetPaths).
func sweepsCwd(c *hookCall, targets []string) bool {
	if gating.ClassifyTool(c.Tool) != gating.ClassRead {
		return false
	}
	if len(targets) == 0 {
		return true
	}
	for _, t := range targets {
		if strings.ContainsAny(filepath.Base(t), "*?[{") || strings.Contains(t, "**") {
			return true
		}
	}
	return false
}

// maxRefusalText bounds the redacted file text a refused read carries; the rest is left out
// with a note.
const maxRefusalText = 64 << 10

// secretRefusal is the reason to refuse, before it runs, a tool call (a read tool, a shell
// command; never a write tool, whose own gates judge it) that names a bank file holding a
// secret, for hosts that cannot hide the output afterwards (secretRefuse): the files' text with
// each secret replaced by REDACTED, so the agent still gets its memory, and where each secret
// is to be removed. A bank directory the call names is refused with the files and lines only,
// and so is a search from a directory above the bank that would show a secret (searchAbove);
// a glob is judged by the files it matches now. "" when the call reads no such file; handed is
// true when the reason carries file text (the read then counts as done).
func secretRefusal(c *hookCall, repos []repo.Repo) (reason string, handed bool) {
	if c.Kind != callPreTool || c.Args == nil || !filepath.IsAbs(c.Cwd) || gating.ClassifyTool(c.Tool) == gating.ClassWrite {
		return "", false
	}
	rs := &refusalScan{sc: newSecretScan(c), left: maxRefusalText}
	sh, isShell := shellOf(c)
	targets := targetFiles(c)
	if isShell {
		targets = shownTargets(targets, sh)
	}
	rs.scan(expandGlobs(targets), repos)
	if len(rs.found) == 0 {
		return indirectRefusal(c, sh, isShell, targets, repos, rs.sc), false
	}
	return rs.refusal(), len(rs.texts) > 0
}

// refusalScan gathers the secrets in the bank files a call would read, and the redacted text
// of each file read whole, up to left bytes in all.
type refusalScan struct {
	sc    *secretScan
	found []bankSecret
	texts []string
	left  int
}

// scan looks at every path in a repository's bank: a folder's files count without their text
// (the call lists or walks them), a file's with it.
func (rs *refusalScan) scan(paths []string, repos []repo.Repo) {
	for _, p := range paths {
		for _, r := range repos {
			rel, ok := bankRel(r, p)
			if !ok {
				continue
			}
			if fi, err := os.Stat(p); err == nil && fi.IsDir() {
				walkBank(r, p, func(rel, file string) { rs.add(r, rel, file, false) })
			} else {
				rs.add(r, rel, p, true)
			}
		}
	}
}

// add scans one bank file; withText keeps its redacted text for the refusal.
func (rs *refusalScan) add(r repo.Repo, rel, p string, withText bool) {
	fs, body := rs.sc.file(r, rel, p)
	if len(fs) == 0 {
		return
	}
	rs.found = append(rs.found, fs...)
	if !withText {
		return
	}
	secrets := make([]string, len(fs))
	for i, f := range fs {
		secrets[i] = f.secret
	}
	text := redactString(string(body), secrets)
	if len(text) > rs.left {
		text = text[:rs.left] + "\n… (the rest of the file is left out: read it by line range)"
	}
	rs.left -= min(rs.left, len(text))
	rs.texts = append(rs.texts, "--- "+rel+" (secrets replaced by REDACTED)\n"+text)
}

// refusal is the reason a call that would read the found secrets is refused, with the
// redacted text of what it would have read when there is some.
func (rs *refusalScan) refusal() string {
	var lines, fixes []string
	for _, f := range rs.found {
		lines = append(lines, f.String())
		fixes = append(fixes, fmt.Sprintf("%s line %d (rule %s)", f.rel, f.line, f.rule))
	}
	msg := "[mbguard] " + strings.Join(lines, "; ") + ", so this call was stopped before it ran: the secret must not reach the model."
	if len(rs.texts) > 0 {
		msg += " Here is what it would have read, with the secret redacted:\n\n" + strings.Join(rs.texts, "\n\n") + "\n\n"
	} else {
		msg += " Read the other files one by one. "
	}
	return msg + "Do not repeat the secret anywhere; remove the secret at " + strings.Join(fixes, ", ") +
		" and keep only where it lives (a vault, an environment variable name)."
}

// indirectRefusal is the reason a call that reads no secret-holding bank file itself is still
// refused ("" when it is not): a shell command that would copy, run or script a secret out, a
// copy of a bank file outside the bank, or a search that would show a secret's line.
func indirectRefusal(c *hookCall, sh shell.Result, isShell bool, targets []string, repos []repo.Repo, sc *secretScan) string {
	if isShell {
		if reason := shellRefusal(sh, repos, sc); reason != "" {
			return reason
		}
	}
	if readsOutside(c) {
		paths := targets
		if isShell {
			paths = shellReads(sh)
		}
		if copies, texts := copySecrets(c, paths, isShell, repos, sc); len(copies) > 0 {
			return copyRefusal(copies, texts)
		}
	}
	if above, next := searchAbove(c, sh, repos, sc); len(above) > 0 {
		what := "this search"
		if isShell {
			what = "this command"
		}
		return stopRefusal(above, "and "+what+" would show it to the model, so it was stopped before it ran", ", or "+next)
	}
	return ""
}

// shellRefusal is the reason a shell command that names no secret-holding bank file is refused
// for what it does with one ("" when it is not): copies it out, runs it, or runs a script that
// names memory-bank/.
func shellRefusal(sh shell.Result, repos []repo.Repo, sc *secretScan) string {
	if carried := carriedSecrets(sh, repos, sc); len(carried) > 0 {
		return stopRefusal(carried, "and this command would copy it out of memory-bank/, where mbguard cannot keep it from the model, so it was stopped before it ran",
			", then copy")
	}
	if ran := ranSecrets(sh, repos, sc); len(ran) > 0 {
		return stopRefusal(ran, "and this command would run it as a program, whose errors and traces print its lines, so it was stopped before it ran",
			", or read it with the read tool, which hands it over with the secret redacted")
	}
	if named, script := scriptSecrets(sh, repos, sc); len(named) > 0 {
		return stopRefusal(named, "and the script this command runs ("+script+") names memory-bank/, so what it prints may show it; it was stopped before it ran",
			", or have the script leave memory-bank/ out")
	}
	return ""
}

// shownTargets leaves out of a shell call's targets the paths it only lists, counts or sums
// (ls memory-bank/details, wc -l, md5sum): no line of them reaches the model. A path the
// command also reads otherwise, or writes, stays.
func shownTargets(targets []string, sh shell.Result) []string {
	names := map[string]bool{}
	for _, a := range sh.Reads {
		if shell.ShowsNames(a.Op) {
			names[a.Path] = true
		}
	}
	if len(names) == 0 {
		return targets
	}
	for _, a := range sh.Reads {
		if !shell.ShowsNames(a.Op) {
			delete(names, a.Path)
		}
	}
	for _, a := range sh.Writes {
		delete(names, a.Path)
	}
	out := targets[:0:0]
	for _, t := range targets {
		if !names[filepath.ToSlash(t)] {
			out = append(out, t)
		}
	}
	return out
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
func redactString(s string, secrets []string) string { return scanner.RedactTexts(s, secrets) }
