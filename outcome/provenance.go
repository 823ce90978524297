package outcome

import (
	"bufio"
	"bytes"
	"crypto/hmac"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/mbguard/mbguard/bank"
)

// Commits have authors (docs/known-good.md, "Commits have authors"). A commit the agent made
// is an agent write once git's own work brings it into the bank: the agent can build one with
// plumbing (hash-object, a private index, commit-tree, branch) without writing a bank file,
// and a merge, checkout, cherry-pick, reset, am or stash pop in a later call would otherwise
// pass its content off as git's.
//
// Which commits are the agent's is told by reachability, not by objects' times: every check
// reads a fingerprint of the ref store (the directories under refs/, packed-refs, HEAD); when
// it moved, one `git for-each-ref` lists the tips and one `git rev-list` the commits that
// became reachable since the tips last recorded. Those that became reachable while an agent
// call (or a job it left) was in flight are the agent's, except what a fetch brought (reachable
// from a remote-tracking ref or FETCH_HEAD). A loose object's mtime would tell when it was
// written, but git freshens the mtime of an object it writes again, a fetch of fewer than 100
// objects unpacks them loose too, and gc moves them into packs: reachability is what git
// itself uses, it costs nothing while no ref moved, and a commit made dangling in one call
// and named by a branch in the next is the agent's when the branch appears. Commits that
// became reachable between calls are the person's.

// RuleAgentCommit: bank content git's work brought from a commit the agent made, judged by
// the write-tool rules.
const RuleAgentCommit = "agent-commit"

// commitRecord is what mbguard knows of the repository's commits: the ref store's fingerprint
// and its tips when last read, and the commits the agent made (oldest first).
type commitRecord struct {
	refs  string
	dirs  []string // the folders under refs/ refs was read from
	tips  []string
	agent []string
	set   map[string]bool
}

const commitsHeader = "mbguard commits 1\n"

// maxAgentCommits bounds the record: the oldest fall off first.
const maxAgentCommits = 20000

// commitPaths are the record's copies: outside the repository first (no agent call may name
// the user's state directory), then in the state folder.
func (g *Guard) commitPaths() []string {
	var out []string
	if base, key := stateBase(), g.repoKey(); base != "" && key != "" {
		out = append(out, filepath.Join(base, "commits", key+".log"))
	}
	return append(out, filepath.Join(g.r.StateDir(), "commits.log"))
}

func (r *commitRecord) encode() []byte {
	var b bytes.Buffer
	b.WriteString(commitsHeader)
	b.WriteString("refs " + r.refs + "\n")
	for _, d := range r.dirs {
		b.WriteString("dir " + d + "\n")
	}
	for _, t := range r.tips {
		b.WriteString("tip " + t + "\n")
	}
	for _, a := range r.agent {
		b.WriteString("agent " + a + "\n")
	}
	return b.Bytes()
}

// loadCommits reads the first authentic copy of the record (nil when none is).
func (g *Guard) loadCommits() *commitRecord {
	for _, p := range g.commitPaths() {
		raw, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		body, ok := g.commitsAuthentic(raw)
		if !ok {
			g.note(p + " holds a record of the agent's commits mbguard did not write; it was ignored")
			continue
		}
		r := &commitRecord{set: map[string]bool{}}
		for _, line := range strings.Split(strings.TrimPrefix(string(body), commitsHeader), "\n") {
			k, v, _ := strings.Cut(line, " ")
			switch k {
			case "refs":
				r.refs = v
			case "dir":
				r.dirs = append(r.dirs, v)
			case "tip":
				r.tips = append(r.tips, v)
			case "agent":
				if !r.set[v] {
					r.agent = append(r.agent, v)
					r.set[v] = true
				}
			}
		}
		return r
	}
	return nil
}

// commitsAuthentic checks the MAC line that ends raw (none is needed without a MAC key).
func (g *Guard) commitsAuthentic(raw []byte) ([]byte, bool) {
	if !bytes.HasPrefix(raw, []byte(commitsHeader)) {
		return nil, false
	}
	i := bytes.LastIndex(raw, []byte("\nmac "))
	if g.userKey() == nil {
		if i >= 0 {
			raw = raw[:i+1]
		}
		return raw, true
	}
	if i < 0 {
		return nil, false
	}
	body, sum := raw[:i+1], bytes.TrimSpace(raw[i+5:])
	return body, hmac.Equal(sum, []byte(g.mac(body)))
}

func (g *Guard) saveCommits(r *commitRecord) {
	if len(r.agent) > maxAgentCommits {
		for _, a := range r.agent[:len(r.agent)-maxAgentCommits] {
			delete(r.set, a)
		}
		r.agent = r.agent[len(r.agent)-maxAgentCommits:]
	}
	body := r.encode()
	if m := g.mac(body); m != "" {
		body = append(body, "mac "+m+"\n"...)
	}
	for _, p := range g.commitPaths() {
		if os.MkdirAll(filepath.Dir(p), 0o700) == nil {
			_ = writeFile(p, body, 0o600, false)
		}
	}
}

// refsPrint is the ref store's fingerprint, read without running git: HEAD as written, the
// stat of packed-refs and of every folder under refs/ (a loose ref is written as a lock file
// renamed into its folder, which changes the folder's mtime; a reftable repository changes
// tables.list). mbguard's own refs/mbguard/ is left out. With dirs (the folders the last full
// print found) it stats only those: a new folder changes its parent's mtime, so the print
// differs and the caller reads the whole tree again (dirs nil).
func (g *Guard) refsPrint(dirs []string) (string, []string) {
	var b strings.Builder
	if h, err := os.ReadFile(filepath.Join(g.r.GitDir, "HEAD")); err == nil {
		b.WriteString(strings.TrimSpace(string(h)))
	}
	stamp := func(p string) {
		if fi, err := os.Stat(p); err == nil {
			ino, _ := inode(fi)
			b.WriteString(" " + strconv.FormatInt(fi.ModTime().UnixNano(), 36) + ":" + strconv.FormatInt(fi.Size(), 36) + ":" + strconv.FormatUint(ino, 36))
		} else {
			b.WriteString(" -")
		}
	}
	if g.obj.reftable {
		stamp(filepath.Join(g.r.CommonDir, "reftable", "tables.list"))
		return b.String(), nil
	}
	stamp(filepath.Join(g.r.CommonDir, "packed-refs"))
	if dirs != nil {
		for _, d := range dirs {
			stamp(filepath.Join(g.r.CommonDir, filepath.FromSlash(d)))
		}
		return b.String(), dirs
	}
	var walk func(rel string)
	walk = func(rel string) {
		dirs = append(dirs, rel)
		p := filepath.Join(g.r.CommonDir, filepath.FromSlash(rel))
		stamp(p)
		es, err := os.ReadDir(p)
		if err != nil {
			return
		}
		for _, e := range es {
			if q := rel + "/" + e.Name(); e.IsDir() && q != "refs/mbguard" {
				walk(q)
			}
		}
	}
	walk("refs")
	return b.String(), dirs
}

// refTips lists the commits (and tags) every ref names, and HEAD's: one git process.
func (g *Guard) refTips() ([]string, error) {
	out, err := g.git("for-each-ref", "--format=%(objectname) %(objecttype) %(refname)")
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var tips []string
	add := func(id string) {
		if id != "" && !seen[id] {
			seen[id] = true
			tips = append(tips, id)
		}
	}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 || f[1] != "commit" && f[1] != "tag" || strings.HasPrefix(f[2], "refs/mbguard/") {
			continue
		}
		add(f[0])
	}
	add(g.headOid())
	sort.Strings(tips)
	return tips, nil
}

// noteCommits brings the record up to date with the ref store: the commits that became
// reachable since it was last read are the agent's when agent is set (an agent call or a job
// it left was in flight), else the person's. Near free while no ref moved.
func (g *Guard) noteCommits(agent bool) {
	rec := g.loadCommits()
	if rec != nil && rec.dirs != nil {
		if fp, _ := g.refsPrint(rec.dirs); fp == rec.refs {
			return
		}
	}
	fp, dirs := g.refsPrint(nil)
	if rec != nil && rec.refs == fp {
		return
	}
	tips, err := g.refTips()
	if err != nil {
		return // not a repository git can read now: the next check tries again
	}
	if rec == nil {
		// nothing known yet (the first check, or every copy lost): what exists now is the
		// baseline, claimed by nobody
		g.saveCommits(&commitRecord{refs: fp, dirs: dirs, tips: tips, set: map[string]bool{}})
		return
	}
	if agent {
		for _, c := range g.newCommits(tips, rec.tips) {
			if !rec.set[c] {
				rec.set[c] = true
				rec.agent = append(rec.agent, c)
			}
		}
	}
	rec.refs, rec.dirs, rec.tips = fp, dirs, tips
	g.saveCommits(rec)
}

// newCommits are the commits reachable from tips and not from old, nor from a
// remote-tracking ref or FETCH_HEAD (what a fetch or pull brought is not the agent's).
func (g *Guard) newCommits(tips, old []string) []string {
	had := map[string]bool{}
	for _, t := range old {
		had[t] = true
	}
	var in bytes.Buffer
	pos := 0
	for _, t := range tips {
		if !had[t] {
			in.WriteString(t + "\n")
			pos++
		}
	}
	if pos == 0 {
		return nil
	}
	for _, t := range old {
		in.WriteString("^" + t + "\n")
	}
	for _, t := range g.fetchHeads() {
		in.WriteString("^" + t + "\n")
	}
	out, err := g.gitIn(&in, "rev-list", "--ignore-missing", "--stdin", "--not", "--remotes")
	if err != nil {
		return nil
	}
	return strings.Fields(string(out))
}

// fetchHeads are the commits FETCH_HEAD names.
func (g *Guard) fetchHeads() []string {
	b, err := os.ReadFile(filepath.Join(g.r.CommonDir, "FETCH_HEAD"))
	if err != nil {
		if b, err = os.ReadFile(filepath.Join(g.r.GitDir, "FETCH_HEAD")); err != nil {
			return nil
		}
	}
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) > 0 && len(f[0]) >= 40 {
			out = append(out, f[0])
		}
	}
	return out
}

// fromAgent finds, among changes git's work put into the bank, those whose state came from a
// commit the agent made: no commit of anyone else's (reachable from a ref, HEAD, the stash
// the call started with, or an operation in progress) introduced that state of that path. It
// returns each such path with the short id of the agent's commit that did (or of the new
// HEAD, when only a merge the call made produced it). nil when the agent made no commit.
func (g *Guard) fromAgent(w *gitWork, cs []*change) map[string]string {
	if len(cs) == 0 {
		return nil
	}
	rec := g.loadCommits()
	if rec == nil || len(rec.agent) == 0 {
		return nil
	}
	want := map[string]string{} // path -> blob id, "" when removed
	for _, c := range cs {
		want[c.path] = c.newBlob
	}
	args := []string{"log", "--exclude=refs/mbguard/*", "--all", "--no-abbrev", "--format=C %H", "--raw", "--root", "-m", "--no-renames"}
	for _, s := range w.starts {
		if s != "" {
			args = append(args, s)
		}
	}
	args = append(args, "--", bank.Dir)
	out, err := g.git(args...)
	if err != nil {
		out = nil // nothing vouches: every such change is judged
	}
	vouched, by := logWriters(out, want, rec)
	res := map[string]string{}
	for p := range want {
		if vouched[p] {
			continue
		}
		id := by[p]
		if id == "" {
			id = w.head
		}
		res[p] = short(id)
	}
	return res
}

// logWriters reads git log --raw output for the wanted path states (path -> blob id, "" when
// removed): vouched holds the paths a commit not the agent's brought to that state, by the
// newest agent commit that did.
func logWriters(out []byte, want map[string]string, rec *commitRecord) (vouched map[string]bool, by map[string]string) {
	vouched, by = map[string]bool{}, map[string]string{}
	cur := ""
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		line := sc.Text()
		if id, ok := strings.CutPrefix(line, "C "); ok {
			cur = id
			continue
		}
		path, ok := rawWanted(line, want)
		if !ok {
			continue
		}
		if rec.set[cur] {
			if by[path] == "" {
				by[path] = cur
			}
		} else {
			vouched[path] = true
		}
	}
	return vouched, by
}

// rawWanted reports a git log --raw line that brings a path to the state wanted for it.
func rawWanted(line string, want map[string]string) (string, bool) {
	meta, path, ok := strings.Cut(line, "\t")
	blob, wanted := want[path]
	if !ok || !wanted || !strings.HasPrefix(meta, ":") {
		return "", false
	}
	f := strings.Fields(meta)
	if len(f) < 5 {
		return "", false
	}
	removed := strings.HasPrefix(f[4], "D")
	if removed && blob != "" || !removed && f[3] != blob {
		return "", false
	}
	return path, true
}

func short(id string) string {
	if len(id) > 7 {
		return id[:7]
	}
	return id
}

// agentCommitText says where a change judged by the write-tool rules came from.
func agentCommitText(id, what string) string {
	if id == "" {
		return "came with " + what + " from a commit the agent made; it was judged like a write and undone"
	}
	return "came from commit " + id + ", which the agent made; " + what + " brought it into the bank, so it was judged like a write and undone"
}
