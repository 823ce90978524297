package stale

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"path"
	"regexp"
	"strings"
	"sync"

	"github.com/mbguard/mbguard/internal/gitexec"
)

// Commit is the commit git names as evidence.
type Commit struct {
	Hash    string `json:"hash"`
	Subject string `json:"subject"`
}

func (c Commit) String() string {
	h := c.Hash
	if len(h) > 12 {
		h = h[:12]
	}
	return fmt.Sprintf("%s (%q)", h, c.Subject)
}

// event is one deletion or rename in history, newest first.
type event struct {
	commit   Commit
	old, new string // new is empty for a deletion
	seq      int    // 0 is the newest
}

// history holds every deletion and rename of the history reachable from HEAD, read with one
// git log only when some path is missing.
type history struct {
	byOld  map[string][]event
	events []event
	byDir  map[string]int // directory → index of the first event of a path under it, built on first use
}

func readHistory(ctx context.Context, root string) (*history, error) {
	if _, err := gitexec.Run(ctx, root, "rev-parse", "--verify", "--quiet", "HEAD^{commit}"); err != nil {
		return &history{byOld: map[string][]event{}}, nil // no commit yet: no history to tell
	}
	out, err := gitexec.Run(ctx, root, "log", "-M", "--diff-filter=DR", "--name-status", "-z", "--no-color", "--format=%x01%H%x09%s", "HEAD", "--")
	if err != nil {
		// rename detection reads old blobs; a partial clone may lack them: deletions at least
		out, err = gitexec.Run(ctx, root, "log", "--no-renames", "--diff-filter=D", "--name-status", "-z", "--no-color", "--format=%x01%H%x09%s", "HEAD", "--")
	}
	if err != nil {
		return nil, fmt.Errorf("reading deletions and renames from git log: %w", err)
	}
	h := &history{byOld: map[string][]event{}}
	var cur Commit
	toks := bytes.Split(out, []byte{0})
	for i := 0; i < len(toks); i++ {
		t := strings.TrimLeft(string(toks[i]), "\n")
		if t == "" {
			continue
		}
		if strings.HasPrefix(t, "\x01") {
			hash, subj, _ := strings.Cut(t[1:], "\t")
			cur = Commit{Hash: hash, Subject: strings.TrimSpace(subj)}
			continue
		}
		switch {
		case t == "D" && i+1 < len(toks):
			h.add(event{commit: cur, old: string(toks[i+1])})
			i++
		case strings.HasPrefix(t, "R") && i+2 < len(toks):
			h.add(event{commit: cur, old: string(toks[i+1]), new: string(toks[i+2])})
			i += 2
		}
	}
	return h, nil
}

func (h *history) add(e event) {
	e.seq = len(h.events)
	h.events = append(h.events, e)
	h.byOld[e.old] = append(h.byOld[e.old], e)
}

// gone explains a path that is no longer there: the newest deletion or rename of it (of a
// file, or of the files under a directory), and where a rename took it, following later renames.
func (h *history) gone(ix *index, p string) (ev event, ok bool) {
	if es := h.byOld[p]; len(es) > 0 {
		ev, ok = es[0], true
	} else {
		ev, ok = h.dirGone(p)
	}
	if !ok {
		return ev, false
	}
	// a renamed path renamed again, or deleted later
	for hops := 0; ev.new != "" && !ix.exists(ev.new) && hops < 8; hops++ {
		next, found := h.gone(ix, ev.new)
		if !found || next.seq > ev.seq {
			ev.new = ""
			break
		}
		ev.new = next.new
		ev.commit = next.commit
	}
	return ev, true
}

// dirGone is the first event that took a file out of folder p, spelt as the folder's own: its
// new name when the file kept its place in the folder.
func (h *history) dirGone(p string) (event, bool) {
	if h.byDir == nil {
		h.byDir = map[string]int{}
		for i, e := range h.events {
			for d := path.Dir(e.old); d != "." && d != "/"; d = path.Dir(d) {
				if _, seen := h.byDir[d]; !seen {
					h.byDir[d] = i
				}
			}
		}
	}
	i, found := h.byDir[p]
	if !found {
		return event{}, false
	}
	e := h.events[i]
	ev := e
	ev.old = p
	ev.new = ""
	rest := e.old[len(p+"/"):]
	if e.new != "" && strings.HasSuffix(e.new, "/"+rest) {
		ev.new = strings.TrimSuffix(e.new, "/"+rest)
	}
	return ev, true
}

var definerSpecs = []string{
	":(glob)**/Makefile", ":(glob)**/makefile", ":(glob)**/GNUmakefile", ":(glob)**/*.mk",
	":(glob)**/package.json",
	":(glob)**/justfile", ":(glob)**/Justfile", ":(glob)**/.justfile",
	":(glob)**/Taskfile.yml", ":(glob)**/Taskfile.yaml", ":(glob)**/taskfile.yml", ":(glob)**/taskfile.yaml",
}

var (
	jsonKey = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`"([^"\\]+)"\s*:`) })
	yamlKey = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s+([A-Za-z0-9_:.\-]+):`) })
)

// removedLines walks the history reachable from HEAD once, newest first, as a zero-context
// patch (git log -p -U0) limited to args, and calls found with each commit and each line a
// diff removed, in the file it removed it from, until found says it has all it wants. Only
// changes and deletions are asked for (an added file removes nothing), and the patch is read
// as git writes it: a long history is read only as far back as needed.
func removedLines(ctx context.Context, root string, args []string, found func(c Commit, file, line string) (done bool)) error {
	if _, err := gitexec.Run(ctx, root, "rev-parse", "--verify", "--quiet", "HEAD^{commit}"); err != nil {
		return nil
	}
	pipe, err := gitexec.Cmd{Dir: root}.Stream(ctx, append([]string{"log", "-p", "-U0", "--no-color", "--no-ext-diff", "--no-renames", "--diff-filter=MD", "--format=%x01%H%x09%s"}, args...)...)
	if err != nil {
		return fmt.Errorf("reading history from git log: %w", err)
	}
	var cur Commit
	file := ""
	done := false
	sc := bufio.NewScanner(pipe)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for !done && sc.Scan() {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "\x01"):
			hash, subj, _ := strings.Cut(l[1:], "\t")
			cur = Commit{Hash: hash, Subject: subj}
		case strings.HasPrefix(l, "diff --git "):
			file = ""
		case strings.HasPrefix(l, "--- "):
			file = strings.TrimPrefix(strings.TrimPrefix(l, "--- "), "a/")
		case strings.HasPrefix(l, "-") && file != "":
			done = found(cur, file, l[1:])
		}
	}
	if done {
		pipe.Stop() // everything wanted is found: the rest of history is not read
		return nil
	}
	if err := sc.Err(); err != nil {
		pipe.Stop()
		return fmt.Errorf("reading history from git log: %w", err)
	}
	if err := pipe.Close(); err != nil {
		return fmt.Errorf("reading history from git log: %w", err)
	}
	return nil
}

// removedNames finds, for each wanted target, script, recipe or task, the newest commit that
// removed its definition: one git log over the files that define them.
func removedNames(ctx context.Context, root string, want map[Kind]map[string]bool) (map[Kind]map[string]Commit, error) {
	got := map[Kind]map[string]Commit{}
	left := 0
	for k, ns := range want {
		got[k] = map[string]Commit{}
		left += len(ns)
	}
	if left == 0 {
		return got, nil
	}
	err := removedLines(ctx, root, append([]string{"HEAD", "--"}, definerSpecs...), func(c Commit, file, line string) bool {
		k := definerKind(path.Base(file))
		var names []string
		switch k {
		case KindMake, KindJust:
			names = definedNames(k, []byte(line))
		case KindScript:
			for _, m := range jsonKey().FindAllStringSubmatch(line, -1) {
				names = append(names, m[1])
			}
		case KindTask:
			if m := yamlKey().FindStringSubmatch(line); m != nil {
				names = []string{m[1]}
			}
		}
		for _, n := range names {
			if _, seen := got[k][n]; want[k][n] && !seen {
				got[k][n] = c
				left--
			}
		}
		return left == 0
	})
	return got, err
}

// removedSymbols finds, for each wanted identifier, the newest commit whose diff removed a
// line of tracked source (not Markdown, not the bank) holding it: one git log for all. (A git
// log -G of every name's alternation cost seconds: git matched it against every added file too.)
func removedSymbols(ctx context.Context, root string, want map[string]bool) (map[string]Commit, error) {
	got := map[string]Commit{}
	if len(want) == 0 {
		return got, nil
	}
	left := len(want)
	err := removedLines(ctx, root, []string{"HEAD", "--", ".", ":(exclude)memory-bank/**", ":(exclude,glob)**/*.md"}, func(c Commit, _, line string) bool {
		identifiers([]byte(line), func(b []byte) {
			if _, seen := got[string(b)]; want[string(b)] && !seen {
				got[string(b)] = c
				left--
			}
		})
		return left == 0
	})
	return got, err
}
