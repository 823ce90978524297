package lifecycle

import (
	"net/url"
	"path"
	"regexp"
	"strings"
	"sync"

	"github.com/mbguard/mbguard/bank"
)

// Link is one relative Markdown link inside the bank that the migration had to look at.
type Link struct {
	Path   string // the file that holds it, after the migration (slash path from the root)
	Line   int
	Target string // as written
	New    string // as rewritten; empty for a link that could not be resolved
}

var (
	// inlineLinkRe finds the target of [text](target) and ![alt](target), plain or <angled>.
	inlineLinkRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\]\(\s*(<[^>\n]*>|[^)\s]+)`) })
	// refDefRe finds the target of a reference definition: [id]: target
	refDefRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^ {0,3}\[[^\]]+\]:\s*(<[^>\n]*>|\S+)`) })
	schemeRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`) })
)

// linkResolver says where each path of the bank went. Paths are slash paths from the root.
type linkResolver struct {
	// moved maps an old path (file or folder) to its new one; deleted entry files map to the file
	// that took their text in.
	moved func(old string) (string, bool)
	// existed reports whether a path (file or folder) was there before the migration.
	existed func(old string) bool
}

// rewriteLinks rewrites the relative links of one file that moved from oldFile to newFile.
// It returns the new content (nil when nothing changed), the rewritten links and the links whose
// targets were not there before the migration: those are listed, never guessed.
func rewriteLinks(content []byte, oldFile, newFile string, r linkResolver) (out []byte, rewritten, unresolved []Link) {
	lines := strings.SplitAfter(string(content), "\n")
	var fence bank.Fence
	changed := false
	for i, l := range lines {
		if fence.Line([]byte(strings.TrimRight(l, "\n"))) || strings.HasPrefix(l, "    ") || strings.HasPrefix(l, "\t") {
			continue
		}
		code := codeSpans(l)
		var locs [][]int
		for _, m := range inlineLinkRe().FindAllStringSubmatchIndex(l, -1) {
			locs = append(locs, m[2:4])
		}
		if m := refDefRe().FindStringSubmatchIndex(l); m != nil {
			locs = append(locs, m[2:4])
		}
		var b strings.Builder
		last := 0
		for _, loc := range sortLocs(locs) {
			// A line can hold a reference definition and an inline link over the same text
			// ("[a]:](b"): a target overlapping one already taken is not a second link.
			if loc[0] < last || inSpans(loc[0], code) {
				continue
			}
			raw := l[loc[0]:loc[1]]
			nt, ok, skip := resolveLink(raw, oldFile, newFile, r)
			if skip {
				continue
			}
			link := Link{Path: newFile, Line: i + 1, Target: raw}
			if !ok {
				unresolved = append(unresolved, link)
				continue
			}
			if nt == raw {
				continue
			}
			link.New = nt
			rewritten = append(rewritten, link)
			b.WriteString(l[last:loc[0]])
			b.WriteString(nt)
			last = loc[1]
		}
		if last > 0 {
			b.WriteString(l[last:])
			lines[i] = b.String()
			changed = true
		}
	}
	if !changed {
		return nil, rewritten, unresolved
	}
	return []byte(strings.Join(lines, "")), rewritten, unresolved
}

// resolveLink maps one written target. skip is true for what is not a relative link into the
// repository (URLs, anchors, absolute paths, links that leave the repository).
func resolveLink(raw, oldFile, newFile string, r linkResolver) (target string, ok, skip bool) {
	t := raw
	angled := strings.HasPrefix(t, "<") && strings.HasSuffix(t, ">")
	if angled {
		t = t[1 : len(t)-1]
	}
	if t == "" || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "/") || schemeRe().MatchString(t) {
		return "", false, true
	}
	p, suffix := t, ""
	if i := strings.IndexAny(t, "?#"); i >= 0 {
		p, suffix = t[:i], t[i:]
	}
	escaped := false
	if strings.Contains(p, "%") {
		if u, err := url.PathUnescape(p); err == nil {
			p, escaped = u, true
		}
	}
	dirSlash := strings.HasSuffix(p, "/")
	old := path.Clean(path.Join(path.Dir(oldFile), p))
	if old == ".." || strings.HasPrefix(old, "../") {
		return "", false, true
	}
	dst, moved := r.moved(old)
	switch {
	case moved:
	case r.existed(old):
		dst = old
	default:
		return "", false, false
	}
	if dst == old && path.Dir(newFile) == path.Dir(oldFile) {
		return raw, true, false // neither end moved: keep the link exactly as written
	}
	rel := relPath(path.Dir(newFile), dst)
	if dirSlash && !strings.HasSuffix(rel, "/") {
		rel += "/"
	}
	if escaped { // written percent-encoded: write it back the same way
		seg := strings.Split(rel, "/")
		for i := range seg {
			seg[i] = url.PathEscape(seg[i])
		}
		rel = strings.Join(seg, "/")
	}
	if angled {
		return "<" + rel + suffix + ">", true, false
	}
	return rel + suffix, true, false
}

// relPath is the relative slash path from folder dir to target.
func relPath(dir, target string) string {
	if dir == "." {
		return target
	}
	d := strings.Split(dir, "/")
	t := strings.Split(target, "/")
	n := 0
	for n < len(d) && n < len(t)-1 && d[n] == t[n] {
		n++
	}
	parts := make([]string, 0, len(d)-n+len(t)-n)
	for range d[n:] {
		parts = append(parts, "..")
	}
	parts = append(parts, t[n:]...)
	return strings.Join(parts, "/")
}

// codeSpans returns the byte ranges of a line's inline code spans (`…`, “…“).
func codeSpans(l string) [][2]int {
	var spans [][2]int
	for i := 0; i < len(l); {
		if l[i] != '`' {
			i++
			continue
		}
		j := i
		for j < len(l) && l[j] == '`' {
			j++
		}
		run := l[i:j]
		k := strings.Index(l[j:], run)
		if k < 0 {
			break
		}
		spans = append(spans, [2]int{i, j + k + len(run)})
		i = j + k + len(run)
	}
	return spans
}

func inSpans(at int, spans [][2]int) bool {
	for _, s := range spans {
		if at >= s[0] && at < s[1] {
			return true
		}
	}
	return false
}

func sortLocs(locs [][]int) [][]int {
	for i := 1; i < len(locs); i++ {
		for j := i; j > 0 && locs[j][0] < locs[j-1][0]; j-- {
			locs[j], locs[j-1] = locs[j-1], locs[j]
		}
	}
	return locs
}
