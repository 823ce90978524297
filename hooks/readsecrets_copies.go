package hooks

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/mbguard/mbguard/bank"
	"github.com/mbguard/mbguard/gating"
	"github.com/mbguard/mbguard/gating/shell"
	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/scanner"
)

// A bank secret is the bank's by content, not by path: a copy of tech.md in /tmp, a note that
// quotes it, MEMORY.md's Current Focus in the anchor block all show the same text. These
// helpers judge what a call reads, and what mbguard itself says, against every secret the
// bank holds now.

// bank returns the secrets every bank file of r holds (each file scanned once per call, through
// the scan cache).
func (s *secretScan) bank(r repo.Repo) []scanner.BankSecret {
	if s.banks == nil {
		s.banks = map[string][]scanner.BankSecret{}
	}
	if found, ok := s.banks[r.Root]; ok {
		return found
	}
	found := s.detector(r).BankSecrets(r.StateDir(), r.Root)
	s.banks[r.Root] = found
	return found
}

func (s *secretScan) detector(r repo.Repo) *scanner.Secrets { return s.call.detector(r) }

// detector is the call's secret scanner for r, shared by every scan of the call and by the
// in-process Service it asks (defaultConnect): the bank's secrets are looked up once, after
// the last request to the Service (asking.send forgets them: the Service may have put a bank
// file back).
func (c *hookCall) detector(r repo.Repo) *scanner.Secrets {
	if c.dets == nil {
		c.dets = map[string]*scanner.Secrets{}
	}
	det := c.dets[r.Root]
	if det == nil {
		det = scanner.NewCallSecrets(r.Root)
		c.dets[r.Root] = det
	}
	return det
}

// forgetBanks drops what the call's detectors know of the banks' secrets.
func (c *hookCall) forgetBanks() {
	for _, det := range c.dets {
		det.ForgetBank()
	}
}

func toBankSecret(f scanner.BankSecret) bankSecret {
	return bankSecret{rel: f.Rel, rule: f.Rule, line: f.Line, secret: f.Secret}
}

// redactAnswer passes every text of a the model or the person sees through the one redaction
// of mbguard's own texts (scanner.RedactInjected): the context block, the anchor block after a
// compaction, notices, refusals, stale lists. An answer without text costs nothing.
func redactAnswer(a *hookAnswer, repos []repo.Repo, sc *secretScan) {
	if a.Deny == "" && a.Undone == "" && a.Context == "" && a.Stderr == "" {
		return
	}
	for _, r := range repos {
		scanner.RedactInjected(sc.bank(r), &a.Deny, &a.Undone, &a.Context, &a.Stderr)
	}
}

// maxCopyWalk bounds the files outside the bank a search is judged on before it runs.
const maxCopyWalk = 512

// copySecrets returns, for a call that reads files outside any bank (a read tool, a search, a
// read-only shell command), the bank secrets those files show — a copy of a bank file, by its
// content — and, for each file named as a read, its text with them redacted. It is for the
// hosts that refuse such reads before they run (secretRefuse). A search of a directory is
// judged on the files (at most maxCopyWalk, .git and the bank left out) its pattern matches.
func copySecrets(c *hookCall, targets []string, isShell bool, repos []repo.Repo, sc *secretScan) (found []bankSecret, texts []string) {
	var all []scanner.BankSecret
	for _, r := range repos {
		all = append(all, sc.bank(r)...)
	}
	if len(all) == 0 {
		return nil, nil
	}
	j := &copyJudge{all: all, seen: map[string]bool{}, left: maxRefusalText}
	search, isSearch := searchOf(c)
	if isSearch {
		targets = append(targets, search.root) // a search with no path searches where it runs
	}
	for _, p := range expandGlobs(targets) {
		if inAnyBank(repos, p) {
			continue // the bank's own files: secretRefusal's
		}
		fi, err := os.Stat(p)
		if err != nil {
			continue
		}
		if !fi.IsDir() {
			j.judge(p, !isSearch)
			continue
		}
		if isShell || !isSearch {
			continue // a shell command's working directory, a listing: not a read of the files
		}
		j.walk(p, search)
	}
	return j.found, j.texts
}

// copyJudge collects the bank secrets that files outside the bank show, and (within left
// bytes in all) those files' text with the secrets redacted.
type copyJudge struct {
	all   []scanner.BankSecret
	seen  map[string]bool
	left  int
	found []bankSecret
	texts []string
}

// inAnyBank reports whether p is inside the bank of one of repos.
func inAnyBank(repos []repo.Repo, p string) bool {
	for _, r := range repos {
		if _, ok := bankRel(r, p); ok {
			return true
		}
	}
	return false
}

// judge records the bank secrets the regular file p shows and, withText, its redacted text.
func (j *copyJudge) judge(p string, withText bool) {
	fi, err := os.Stat(p)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > scanner.MaxReadScan {
		return
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return
	}
	shown := scanner.Shown(string(b), j.all)
	if len(shown) == 0 {
		return
	}
	for _, f := range shown {
		if k := f.Rel + "\x00" + f.Secret; !j.seen[k] {
			j.seen[k] = true
			j.found = append(j.found, toBankSecret(f))
		}
	}
	if !withText {
		return
	}
	text := scanner.RedactTexts(string(b), scanner.Forms(shown))
	if len(text) > j.left {
		text = text[:j.left] + "\n… (the rest of the file is left out: read it by line range)"
	}
	j.left -= min(j.left, len(text))
	j.texts = append(j.texts, "--- "+p+" (a copy of a memory-bank/ secret; secrets replaced by REDACTED)\n"+text)
}

// walk judges (without text) the files under the directory p a content search may match, at
// most maxCopyWalk of them, skipping .git, the bank and node_modules below p.
func (j *copyJudge) walk(p string, search contentSearch) {
	n := 0
	_ = filepath.WalkDir(p, func(q string, d os.DirEntry, err error) error {
		if err != nil || n >= maxCopyWalk {
			return filepath.SkipDir
		}
		if d.IsDir() && q != p && (d.Name() == ".git" || d.Name() == bank.Dir || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.Type().IsRegular() {
			n++
			if search.mayMatch(q) {
				j.judge(q, false)
			}
		}
		return nil
	})
}

// readsOutside reports whether c is a call whose targets copySecrets judges: a read or search
// tool, or a shell command (its reads only).
func readsOutside(c *hookCall) bool {
	switch gating.ClassifyTool(c.Tool) {
	case gating.ClassRead:
		return true
	}
	return gating.ShellTool(c.Tool)
}

// copyRefusal is the reason to refuse a read of a copy of a bank secret outside the bank.
func copyRefusal(found []bankSecret, texts []string) string {
	msg := stopRefusal(found, "and this call reads a copy of it outside memory-bank/, so it was stopped before it ran", ", then delete the copy")
	if len(texts) > 0 {
		msg += " Here is what it would have read, with the secret redacted:\n\n" + strings.Join(texts, "\n\n")
	}
	return msg
}

// shellReads are the files a shell command reads and shows (not only lists or sums).
func shellReads(sh shell.Result) []string {
	var out []string
	for _, a := range sh.Reads {
		if !shell.ShowsNames(a.Op) {
			out = append(out, filepath.FromSlash(a.Path))
		}
	}
	return out
}
