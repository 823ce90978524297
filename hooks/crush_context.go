package hooks

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mbguard/mbguard/bank"
	"github.com/mbguard/mbguard/gating"
	"github.com/mbguard/mbguard/internal/config"
	"github.com/mbguard/mbguard/internal/fsutil"
	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/scanner"
)

// Crush has no session-start event: the only way MEMORY.md reaches its model at the start of a
// session is Crush's own options.context_paths, which puts a file's raw text into the system
// prompt. Pointing it at memory-bank/MEMORY.md itself would skip mbguard's truncation and
// secret redaction, so install points it at a view mbguard writes: the same <memory-bank>
// block the other hosts get at session start (gating.ContextBlock, redacted, truncated at
// context.max_chars). The view lives in mbguard's state folder under the git directory, which
// no agent may write (gating.ProtectedPaths: .git/mbguard/), and is rewritten at a hook call
// whenever MEMORY.md (or context.max_chars) changed — so a session sees the MEMORY.md of the
// last hook call before it started.

// crushContextName is the view's file name in the repository's state folder.
const crushContextName = "crush-context.md"

// crushContextRel is how install writes the view's path into a --global crush.json: relative to
// the project Crush runs in, which holds the view wherever mbguard's hooks ran in a plain
// checkout.
const crushContextRel = ".git/mbguard/" + crushContextName

// CrushContextPath is the MEMORY.md view of repository r that Crush reads.
func CrushContextPath(r repo.Repo) string { return filepath.Join(r.StateDir(), crushContextName) }

// crushContextEntry is the options.context_paths entry for o: the view's path relative to the
// repository root when it lies inside it (a plain checkout, so crush.json stays portable), else
// absolute (a linked worktree); crushContextRel with Global.
func crushContextEntry(o InstallOptions) string {
	if o.Global || o.GitDir == "" {
		return crushContextRel
	}
	p := CrushContextPath(repo.Repo{Root: o.Root, GitDir: o.GitDir})
	if rel, err := filepath.Rel(o.Root, p); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return p
}

// refreshCrushContext rewrites r's view when MEMORY.md, the bank's layout or the context size
// changed since the view was written (a stamp file next to it says what it was written from).
func refreshCrushContext(r repo.Repo, cfg *config.Config) error {
	view := CrushContextPath(r)
	return refreshMemoryView(r, cfg, view, view+".stamp", "")
}

// refreshMemoryView rewrites the MEMORY.md view at view (head, then the context block) when
// MEMORY.md, the bank's layout or the context size changed since stampFile was written.
func refreshMemoryView(r repo.Repo, cfg *config.Config, view, stampFile, head string) error {
	dir := r.BankDir()
	ents, derr := os.ReadDir(dir)
	if derr != nil && !errors.Is(derr, os.ErrNotExist) {
		return fmt.Errorf("reading %s: %w", dir, derr)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	layout := bank.DetectLayout(derr == nil, names)
	maxChars := 0
	if cfg != nil {
		maxChars = cfg.Context.MaxChars
	}
	mem := filepath.Join(dir, "MEMORY.md")
	stamp := fmt.Sprintf("v1 layout=%v max=%d", layout, maxChars)
	if fi, err := os.Stat(mem); err == nil {
		stamp += fmt.Sprintf(" mtime=%d size=%d", fi.ModTime().UnixNano(), fi.Size())
	}
	if old, err := os.ReadFile(stampFile); err == nil && string(old) == stamp {
		if _, err := os.Stat(view); err == nil {
			return nil
		}
	}
	text, err := crushContextText(r, layout, maxChars)
	if err != nil {
		return err
	}
	if text != "" {
		text = head + text
	}
	if err := os.MkdirAll(filepath.Dir(view), 0o755); err != nil {
		return err
	}
	if err := fsutil.WriteFileAtomic(view, []byte(text), 0o644); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(stampFile), 0o755); err != nil {
		return err
	}
	return fsutil.WriteFileAtomic(stampFile, []byte(stamp), 0o644)
}

// crushContextText is the view: the context block, with every secret gitleaks finds in
// MEMORY.md, and every secret of the rest of the bank, redacted; when the scan fails, MEMORY.md
// is withheld rather than shown unscanned.
func crushContextText(r repo.Repo, layout bank.Layout, maxChars int) (string, error) {
	var mem []byte
	if layout == bank.LayoutV7 || layout == bank.LayoutMixed {
		b, err := os.ReadFile(filepath.Join(r.BankDir(), "MEMORY.md"))
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return "", err
		}
		mem = b
	}
	var scanErr error
	redact := func(text string) string {
		fs, err := scanner.NewSecrets(r.Root).ScanCached(r.StateDir(), "memory-bank/MEMORY.md", []byte(text))
		if err != nil {
			scanErr = err
			return "[MEMORY.md withheld: the secret scan failed; run `mbguard doctor`]\n"
		}
		return string(scanner.Redact([]byte(text), fs))
	}
	block := gating.ContextBlock(string(mem), layout, maxChars, redact)
	// the one redaction of what mbguard shows the model: every secret of the bank, in every form
	scanner.RedactInjected(scanner.NewSecrets(r.Root).BankSecrets(r.StateDir(), r.Root), &block)
	if scanErr != nil {
		return block, fmt.Errorf("scanning MEMORY.md for secrets: %w", scanErr)
	}
	if block == "" {
		return "", nil
	}
	return block + "\n", nil
}

// crushContextPaths adds (or with Uninstall removes) the view's entry in crush.json's
// options.context_paths, keeping every other option and path; it also writes the view once, so
// the first session after install has it. A crush.json that is not valid JSON was already
// refused by installHookFile.
func crushContextPaths(o InstallOptions) ([]Change, error) {
	path := HookFilePath("crush", o)
	show := displayPath(o.Root, path)
	old, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil // uninstall removed a file that held only mbguard's entries
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", show, err)
	}
	top, opts, paths, err := crushOptions(old, show)
	if err != nil {
		return nil, err
	}
	entry := crushContextEntry(o)
	kept := slices.DeleteFunc(slices.Clone(paths), func(p string) bool { return isCrushContextPath(p, entry) })
	if !o.Uninstall {
		kept = append(kept, entry)
	}
	if err := writeCrushView(o); err != nil {
		return nil, err
	}
	if slices.Equal(kept, paths) {
		return nil, nil
	}
	if len(kept) == 0 {
		opts.del("context_paths")
	} else {
		b, _ := json.Marshal(kept)
		opts.set("context_paths", b)
	}
	setOrDrop(top, "options", opts)
	return writeCrushConfig(o.Uninstall, path, show, top, entry)
}

// crushOptions reads crush.json's top object, its "options" and their context_paths.
func crushOptions(old []byte, show string) (top, opts *jsonObject, paths []string, err error) {
	top, err = parseObject(old)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%s is not a valid JSON object (%v): fix it by hand and run this again", show, err)
	}
	opts = &jsonObject{}
	if raw, ok := top.get("options"); ok {
		if opts, err = parseObject(raw); err != nil {
			return nil, nil, nil, fmt.Errorf(`%s: "options" is not a JSON object (%v): fix it by hand and run this again`, show, err)
		}
	}
	if raw, ok := opts.get("context_paths"); ok {
		if err := json.Unmarshal(raw, &paths); err != nil {
			return nil, nil, nil, fmt.Errorf(`%s: "options.context_paths" is not a list of paths: fix it by hand and run this again`, show)
		}
	}
	return top, opts, paths, nil
}

// isCrushContextPath reports whether a context_paths entry is the view's: this install's
// entry, or one an install from another place or version wrote.
func isCrushContextPath(p, entry string) bool {
	return p == entry || p == crushContextRel || strings.HasSuffix(filepath.ToSlash(p), "/mbguard/"+crushContextName)
}

// writeCrushView writes the MEMORY.md view once at a project install, so the first session
// after it has the view.
func writeCrushView(o InstallOptions) error {
	if o.Global || o.Uninstall || o.GitDir == "" {
		return nil
	}
	r := repo.Repo{Root: o.Root, GitDir: o.GitDir, CommonDir: o.CommonDir}
	cfg, _ := config.Load(config.Options{RepoRoot: o.Root})
	if err := refreshCrushContext(r, cfg); err != nil {
		return fmt.Errorf("writing the MEMORY.md view for Crush: %w", err)
	}
	return nil
}

// writeCrushConfig writes crush.json with top, keeping its mode, or removes it when uninstall
// left it empty.
func writeCrushConfig(uninstall bool, path, show string, top *jsonObject, entry string) ([]Change, error) {
	out, err := indentJSON(top.encode())
	if err != nil {
		return nil, fmt.Errorf("encoding %s: %w", show, err)
	}
	perm := os.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		perm = fi.Mode().Perm()
	}
	if len(top.keys) == 0 && uninstall {
		if err := os.Remove(path); err != nil {
			return nil, fmt.Errorf("removing %s: %w", show, err)
		}
		return []Change{{Path: show, Action: "removed", Note: "it held only mbguard's settings"}}, nil
	}
	if err := fsutil.WriteFileAtomic(path, out, perm); err != nil {
		return nil, err
	}
	what := "options.context_paths: MEMORY.md view " + entry
	if uninstall {
		what = "options.context_paths: MEMORY.md view removed"
	}
	return []Change{{Path: show, Action: "updated", Note: what}}, nil
}
