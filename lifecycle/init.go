package lifecycle

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/mbguard/mbguard/bank"
	"github.com/mbguard/mbguard/internal/fsutil"
	"github.com/mbguard/mbguard/templates"
)

// ErrLegacy reports a legacy (or mixed) bank where init or upgrade was asked for.
var ErrLegacy = errors.New("memory-bank/ holds an older memory bank (memory-bank-skill legacy, Cline, Roo Code or Cursor): run mbguard migrate")

// Scan budget for init, from seed 004: enough to describe a project, never a crawl.
const (
	scanMaxFiles = 10
	scanMaxLines = 200
)

// InitResult lists what Init created, as slash paths relative to the repository root.
type InitResult struct {
	Created []string
	Layout  bank.Layout // the layout found before Init ran
}

// Init scaffolds the v7.1 layout under root/memory-bank, filling Project Snapshot and
// details/tech.md from the repository's README and manifests. It never overwrites a file: in
// an existing v7 bank it creates only what is missing.
func Init(root string) (InitResult, error) {
	dir := filepath.Join(root, bank.Dir)
	layout, err := DetectLayout(dir)
	if err != nil {
		return InitResult{}, err
	}
	res := InitResult{Layout: layout}
	if layout == bank.LayoutLegacy || layout == bank.LayoutMixed {
		return res, ErrLegacy
	}
	if layout == bank.LayoutNone || layout == bank.LayoutEmpty {
		if why := bankElsewhere(root); why != "" {
			return res, errors.New(why) // a second, empty bank beside the real one would split the memory
		}
	}
	facts := scanProject(root)
	files := []struct {
		rel, tmpl string
		vars      map[string]string
	}{
		{"MEMORY.md", templates.Memory, map[string]string{"snapshot": facts.snapshot()}},
		{"details/tech.md", templates.Tech, map[string]string{"stack": facts.stack()}},
		{"details/patterns.md", templates.Patterns, nil},
		{"details/progress.md", templates.Progress, nil},
	}
	for _, f := range files {
		b, err := templates.Render(f.tmpl, f.vars)
		if err != nil {
			return res, err
		}
		made, err := createNew(filepath.Join(dir, filepath.FromSlash(f.rel)), b)
		if err != nil {
			return res, err
		}
		if made {
			res.Created = append(res.Created, bank.Dir+"/"+f.rel)
		}
	}
	kept, err := keepEmptyDirs(dir)
	res.Created = append(res.Created, kept...)
	return res, err
}

// keepEmptyDirs gives the bank's empty detail folders a .gitkeep, and returns the ones made.
func keepEmptyDirs(dir string) ([]string, error) {
	var created []string
	for _, d := range []string{"details/design", "details/requirements", "details/learnings"} {
		p := filepath.Join(dir, filepath.FromSlash(d))
		if ents, err := os.ReadDir(p); err == nil && len(ents) > 0 {
			continue
		}
		made, err := createNew(filepath.Join(p, ".gitkeep"), nil)
		if err != nil {
			return created, err
		}
		if made {
			created = append(created, bank.Dir+"/"+d+"/.gitkeep")
		}
	}
	return created, nil
}

// DetectLayout classifies the bank in dir (root/memory-bank) with the shared bank model.
func DetectLayout(dir string) (bank.Layout, error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return bank.LayoutNone, nil
	}
	if err != nil {
		return bank.LayoutNone, fmt.Errorf("reading %s: %w", dir, err)
	}
	names := make([]string, 0, len(ents))
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return bank.DetectLayout(true, names), nil
}

// createNew writes b to p only if p does not exist, atomically: the content is written to a
// temporary file and hard-linked into place, which fails rather than replaces.
func createNew(p string, b []byte) (bool, error) {
	if _, err := os.Lstat(p); err == nil {
		return false, nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return false, fmt.Errorf("creating %s: %w", filepath.Dir(p), err)
	}
	err := fsutil.WriteFile(p, b, 0o644, fsutil.Options{NoSync: true, Exclusive: true})
	if errors.Is(err, fs.ErrExist) {
		return false, nil
	}
	return err == nil, err
}

// projectFacts is what init learns from the repository's own description of itself.
type projectFacts struct {
	title, summary []string // from the README
	stackLines     []string
}

func (p projectFacts) snapshot() string {
	var b []string
	if len(p.title) > 0 {
		b = append(b, "- **"+p.title[0]+"**")
	}
	for _, s := range p.summary {
		b = append(b, "- "+s)
	}
	for _, s := range p.stackLines {
		b = append(b, s)
	}
	if len(b) == 0 {
		return ""
	}
	return strings.Join(b, "\n")
}

func (p projectFacts) stack() string { return strings.Join(p.stackLines, "\n") }

var headingRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`) })

// scanProject reads at most scanMaxFiles files of scanMaxLines lines each.
func scanProject(root string) projectFacts {
	var p projectFacts
	candidates := []string{"README.md", "README", "README.rst", "README.txt", "readme.md", "go.mod", "package.json", "pyproject.toml", "Cargo.toml"}
	read := 0
	for _, c := range candidates {
		if read >= scanMaxFiles {
			break
		}
		lines, ok := headLines(filepath.Join(root, c))
		if !ok {
			continue
		}
		read++
		switch {
		case strings.HasPrefix(strings.ToLower(c), "readme"):
			if len(p.title) == 0 {
				p.title, p.summary = readmeFacts(lines)
			}
		case c == "go.mod":
			var mod, ver string
			for _, l := range lines {
				if v, ok := strings.CutPrefix(l, "module "); ok {
					mod = strings.TrimSpace(v)
				}
				if v, ok := strings.CutPrefix(l, "go "); ok {
					ver = strings.TrimSpace(v)
				}
			}
			p.stackLines = append(p.stackLines, fmt.Sprintf("- Go %s, module `%s` (go.mod)", ver, mod))
		case c == "package.json":
			var pkg struct {
				Name        string            `json:"name"`
				Description string            `json:"description"`
				Engines     map[string]string `json:"engines"`
			}
			if json.Unmarshal([]byte(strings.Join(lines, "\n")), &pkg) == nil {
				s := fmt.Sprintf("- JavaScript/TypeScript package `%s` (package.json)", pkg.Name)
				if n := pkg.Engines["node"]; n != "" {
					s += ", Node " + n
				}
				p.stackLines = append(p.stackLines, s)
				if len(p.summary) == 0 && pkg.Description != "" {
					p.summary = []string{pkg.Description}
				}
			} else {
				p.stackLines = append(p.stackLines, "- JavaScript/TypeScript (package.json)")
			}
		case c == "pyproject.toml":
			s := "- Python"
			if n := tomlValue(lines, "name"); n != "" {
				s += ", project `" + n + "`"
			}
			if r := tomlValue(lines, "requires-python"); r != "" {
				s += ", requires " + r
			}
			p.stackLines = append(p.stackLines, s+" (pyproject.toml)")
		case c == "Cargo.toml":
			s := "- Rust"
			if n := tomlValue(lines, "name"); n != "" {
				s += ", crate `" + n + "`"
			}
			if e := tomlValue(lines, "edition"); e != "" {
				s += ", edition " + e
			}
			p.stackLines = append(p.stackLines, s+" (Cargo.toml)")
		}
	}
	return p
}

func headLines(p string) ([]string, bool) {
	f, err := os.Open(p)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, false
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	var out []string
	for len(out) < scanMaxLines && sc.Scan() {
		out = append(out, strings.TrimRight(strings.TrimPrefix(sc.Text(), "\ufeff"), "\r"))
	}
	return out, true
}

// readmeFacts takes the first heading as the title and the first prose paragraph (up to three
// lines) as the summary, skipping badges, HTML and code.
func readmeFacts(lines []string) (title, summary []string) {
	inFence := false
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		if m := headingRe().FindStringSubmatch(t); m != nil {
			if len(title) == 0 && m[1] != "" {
				title = []string{m[1]}
				continue
			}
			if len(summary) > 0 {
				break
			}
			continue
		}
		if t == "" || decoration(t) {
			if len(summary) > 0 && t == "" {
				break
			}
			continue
		}
		if len(title) == 0 {
			title = []string{t} // setext heading or plain first line
			continue
		}
		summary = append(summary, t)
		if len(summary) == 3 {
			break
		}
	}
	return title, summary
}

// decoration reports whether a README line is a badge, an image, HTML or a setext underline
// or rule, which say nothing about the project.
func decoration(t string) bool {
	for _, p := range []string{"[![", "<", "![", "===", "---"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

func tomlValue(lines []string, key string) string {
	for _, l := range lines {
		k, v, ok := strings.Cut(l, "=")
		if ok && strings.TrimSpace(k) == key {
			return strings.Trim(strings.TrimSpace(v), `"'`)
		}
	}
	return ""
}
