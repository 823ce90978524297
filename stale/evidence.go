package stale

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/mbguard/mbguard/scanner"
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
}

func readHistory(ctx context.Context, root string) (*history, error) {
	if _, err := scanner.Git(ctx, root, nil, "rev-parse", "--verify", "--quiet", "HEAD^{commit}"); err != nil {
		return &history{byOld: map[string][]event{}}, nil // no commit yet: no history to tell
	}
	out, err := scanner.Git(ctx, root, nil, "log", "-M", "--diff-filter=DR", "--name-status", "-z", "--no-color", "--format=%x01%H%x09%s", "HEAD", "--")
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
		prefix := p + "/"
		for _, e := range h.events {
			if !strings.HasPrefix(e.old, prefix) {
				continue
			}
			ev, ok = e, true
			ev.old = p
			ev.new = ""
			rest := e.old[len(prefix):]
			if e.new != "" && strings.HasSuffix(e.new, "/"+rest) {
				ev.new = strings.TrimSuffix(e.new, "/"+rest)
			}
			break
		}
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

// lastTouch finds the newest commit whose diff adds or removes a line matching re in the
// files pathspecs name: for a name that is gone, the commit that removed it.
func lastTouch(ctx context.Context, root, re string, pathspecs ...string) (Commit, bool) {
	args := append([]string{"log", "-1", "--no-color", "--format=%H%x09%s", "-G", re, "HEAD", "--"}, pathspecs...)
	out, err := scanner.Git(ctx, root, nil, args...)
	if err != nil || len(bytes.TrimSpace(out)) == 0 {
		return Commit{}, false
	}
	hash, subj, _ := strings.Cut(strings.TrimSpace(string(out)), "\t")
	return Commit{Hash: hash, Subject: subj}, true
}

var definerSpecs = map[Kind][]string{
	KindMake:   {":(glob)**/Makefile", ":(glob)**/makefile", ":(glob)**/GNUmakefile", ":(glob)**/*.mk"},
	KindScript: {":(glob)**/package.json"},
	KindJust:   {":(glob)**/justfile", ":(glob)**/Justfile", ":(glob)**/.justfile"},
	KindTask:   {":(glob)**/Taskfile.yml", ":(glob)**/Taskfile.yaml", ":(glob)**/taskfile.yml", ":(glob)**/taskfile.yaml"},
}

// removedName finds the commit that removed a target, script, recipe or task.
func removedName(ctx context.Context, root string, k Kind, name string) (Commit, bool) {
	q := regexp.QuoteMeta(name)
	var re string
	switch k {
	case KindMake:
		re = `^([^:=#]*[[:space:]])?` + q + `([[:space:]][^:=#]*)?::?([^=]|$)`
	case KindScript:
		re = `"` + q + `"[[:space:]]*:`
	case KindJust:
		re = `^@?` + q + `([[:space:]][^:]*)?:`
	case KindTask:
		re = `^[[:space:]]+` + q + `:`
	}
	return lastTouch(ctx, root, re, definerSpecs[k]...)
}

// removedSymbol finds the commit that removed the last occurrence of an identifier.
func removedSymbol(ctx context.Context, root, name string) (Commit, bool) {
	re := `(^|[^A-Za-z0-9_])` + regexp.QuoteMeta(name) + `([^A-Za-z0-9_]|$)`
	return lastTouch(ctx, root, re, ".", ":(exclude)memory-bank/**", ":(exclude,glob)**/*.md")
}
