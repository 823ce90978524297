package hooks

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/mbguard/mbguard/internal/fsutil"
)

// LefthookConfigs are the names lefthook reads its configuration from, in its own order.
var LefthookConfigs = []string{"lefthook.yml", ".lefthook.yml", "lefthook.yaml", ".lefthook.yaml",
	".config/lefthook.yml", ".config/lefthook.yaml", "lefthook.toml", ".lefthook.toml", "lefthook.json", ".lefthook.json"}

// LefthookSnippet is what mbguard adds to a lefthook configuration, for users who add it
// themselves. Lefthook skips it with LEFTHOOK_EXCLUDE=mbguard (or everything with LEFTHOOK=0).
func LefthookSnippet(bin string) string {
	return "pre-commit:\n  commands:\n    mbguard:\n      run: " + ghQuote(bin) + " check --staged\n"
}

// lefthookConfig returns the repository's lefthook configuration file, or "".
func lefthookConfig(root string) string {
	for _, n := range LefthookConfigs {
		p := filepath.Join(root, filepath.FromSlash(n))
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p
		}
	}
	return ""
}

// installLefthook adds mbguard's command to the pre-commit hook of a lefthook configuration
// (or removes it), editing the text so the user's comments, order and layout stay as they
// were. A configuration it cannot edit safely (TOML, JSON, flow style) gets the snippet to
// add by hand instead.
func installLefthook(o InstallOptions, cfg, bin string) ([]Change, error) {
	show := ghRel(o.Root, cfg)
	by := func(why string) error {
		return fmt.Errorf("%s: %s; add this to it yourself:\n%s", show, why, LefthookSnippet(bin))
	}
	if ext := filepath.Ext(cfg); ext != ".yml" && ext != ".yaml" {
		if o.Uninstall {
			return []Change{{Path: show, Action: "skipped", Note: "mbguard edits only YAML lefthook files; remove its command by hand"}}, nil
		}
		return nil, by("mbguard edits only YAML lefthook configurations")
	}
	b, err := os.ReadFile(cfg)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", show, err)
	}
	text := string(b)
	stripped, had := stripLefthook(text)
	if o.Uninstall {
		if !had {
			return []Change{{Path: show, Action: "skipped", Note: "no mbguard command in it: nothing to remove"}}, nil
		}
		if err := fsutil.WriteFileAtomic(cfg, []byte(stripped), fileMode(cfg)); err != nil {
			return nil, err
		}
		return []Change{{Path: show, Action: "updated", Note: "mbguard's command removed"}}, nil
	}
	if had {
		return []Change{{Path: show, Action: "unchanged", Note: lefthookNote(o)}}, nil
	}
	next, why := addLefthook(text, bin)
	if why != "" {
		if why == "ours" {
			return []Change{{Path: show, Action: "kept", Note: "its pre-commit hook already has a command named mbguard"}}, nil
		}
		return nil, by(why)
	}
	var check yaml.Node
	if err := yaml.Unmarshal([]byte(next), &check); err != nil {
		return nil, by("mbguard could not add its command without breaking the file")
	}
	if err := fsutil.WriteFileAtomic(cfg, []byte(next), fileMode(cfg)); err != nil {
		return nil, err
	}
	return []Change{{Path: show, Action: "updated", Note: "pre-commit runs mbguard check --staged; " + lefthookNote(o)}}, nil
}

// lefthookNote is the next step after editing the configuration: lefthook itself must be the
// git hook, which `lefthook install` sets up.
func lefthookNote(o InstallOptions) string {
	if runsLefthook(o) {
		return "skip once with LEFTHOOK_EXCLUDE=mbguard git commit"
	}
	return "then run lefthook install so git runs lefthook"
}

// runsLefthook reports whether the pre-commit hook git runs is lefthook's.
func runsLefthook(o InstallOptions) bool {
	dir, err := hooksDir(o)
	if err != nil {
		return false
	}
	b, err := os.ReadFile(filepath.Join(dir, "pre-commit"))
	return err == nil && strings.Contains(string(b), "lefthook")
}

func fileMode(p string) fs.FileMode {
	if fi, err := os.Stat(p); err == nil {
		return fi.Mode().Perm()
	}
	return 0o644
}

// addLefthook returns text with mbguard's command added under pre-commit.commands, or why it
// cannot ("ours" when a command named mbguard is already there).
func addLefthook(text, bin string) (string, string) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
		return "", fmt.Sprintf("it is not valid YAML (%v)", err)
	}
	run := "run: " + ghQuote(bin) + " check --staged"
	var root *yaml.Node
	if len(doc.Content) > 0 {
		root = doc.Content[0]
	}
	if root == nil || root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return appendBlock(text, GitHookMarker+"\n"+LefthookSnippet(bin)), ""
	}
	if root.Kind != yaml.MappingNode || root.Style&yaml.FlowStyle != 0 {
		return "", "its top level is not a block mapping"
	}
	pk, pv := mapGet(root, "pre-commit")
	if pk == nil {
		return appendBlock(text, GitHookMarker+"\n"+LefthookSnippet(bin)), ""
	}
	return addUnderPreCommit(text, run, pk, pv)
}

// addUnderPreCommit adds mbguard's command to the pre-commit entry (key pk, value pv), making
// its commands mapping when there is none.
func addUnderPreCommit(text, run string, pk, pv *yaml.Node) (string, string) {
	if isNull(pv) {
		in := strings.Repeat(" ", pk.Column-1+2)
		return insertAfter(text, pk.Line, lines(in, GitHookMarker, "commands:", "  mbguard:", "    "+run)), ""
	}
	if !isBlockMapping(pv) {
		return "", "its pre-commit entry is not a block mapping"
	}
	ck, cv := mapGet(pv, "commands")
	if ck == nil {
		in := strings.Repeat(" ", pv.Content[0].Column-1)
		return insertAfter(text, pk.Line, lines(in, GitHookMarker, "commands:", "  mbguard:", "    "+run)), ""
	}
	if isNull(cv) {
		in := strings.Repeat(" ", ck.Column-1+2)
		return insertAfter(text, ck.Line, lines(in, GitHookMarker, "mbguard:", "  "+run)), ""
	}
	if !isBlockMapping(cv) {
		return "", "its pre-commit commands are not a block mapping"
	}
	if k, _ := mapGet(cv, "mbguard"); k != nil {
		return "", "ours"
	}
	in := strings.Repeat(" ", cv.Content[0].Column-1)
	return insertAfter(text, ck.Line, lines(in, GitHookMarker, "mbguard:", "  "+run)), ""
}

// isBlockMapping reports whether n is a mapping written as a block with at least one entry.
func isBlockMapping(n *yaml.Node) bool {
	return n.Kind == yaml.MappingNode && n.Style&yaml.FlowStyle == 0 && len(n.Content) > 0
}

func mapGet(m *yaml.Node, key string) (*yaml.Node, *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i], m.Content[i+1]
		}
	}
	return nil, nil
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!null" }

func lines(indent string, ls ...string) string {
	var b strings.Builder
	for _, l := range ls {
		b.WriteString(indent + l + "\n")
	}
	return b.String()
}

func appendBlock(text, block string) string {
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	if strings.TrimSpace(text) != "" {
		text += "\n"
	}
	return text + block
}

// insertAfter inserts block after the 1-based line n of text.
func insertAfter(text string, n int, block string) string {
	ls := strings.SplitAfter(text, "\n")
	if n > len(ls) {
		n = len(ls)
	}
	head := strings.Join(ls[:n], "")
	if !strings.HasSuffix(head, "\n") {
		head += "\n"
	}
	return head + block + strings.Join(ls[n:], "")
}

// stripLefthook removes what addLefthook added: the marker line, the line after it and every
// following line indented deeper than the marker.
func stripLefthook(text string) (string, bool) {
	ls := strings.SplitAfter(text, "\n")
	var out strings.Builder
	had := false
	for i := 0; i < len(ls); i++ {
		l := ls[i]
		if strings.TrimSpace(l) != GitHookMarker {
			out.WriteString(l)
			continue
		}
		had = true
		depth := len(l) - len(strings.TrimLeft(l, " "))
		i++ // the key line
		for i+1 < len(ls) {
			n := ls[i+1]
			if strings.TrimSpace(n) == "" || len(n)-len(strings.TrimLeft(n, " ")) <= depth {
				break
			}
			i++
		}
	}
	s := out.String()
	if had {
		s = strings.TrimRight(s, "\n")
		if s != "" {
			s += "\n"
		}
	}
	return s, had
}

// hooksDir is the hooks folder git runs: core.hooksPath when set, else the git-path hooks.
func hooksDir(o InstallOptions) (string, error) {
	if hp, _ := ghGit(o.Root, "config", "--get", "core.hooksPath"); hp != "" {
		if strings.HasPrefix(hp, "~/") && o.Home != "" {
			hp = filepath.Join(o.Home, hp[2:])
		}
		if !filepath.IsAbs(hp) {
			hp = filepath.Join(o.Root, hp)
		}
		return filepath.Clean(hp), nil
	}
	out, err := ghGit(o.Root, "rev-parse", "--git-path", "hooks")
	if err != nil {
		return "", fmt.Errorf("locating the hooks directory: %w", err)
	}
	if !filepath.IsAbs(out) {
		out = filepath.Join(o.Root, out)
	}
	return filepath.Clean(out), nil
}

// GitHookStatus says what runs `mbguard check --staged` before a commit, if anything.
type GitHookStatus struct {
	Installed bool
	Detail    string // what is installed, or what is missing
	Next      string // when not installed: the one step that works here
}

// GitHookState reports which pre-commit mechanism runs mbguard: the pre-commit framework,
// lefthook, husky, or a hook in the folder git really runs (core.hooksPath included), and the
// install step that works in this repository when none does.
func GitHookState(o InstallOptions) GitHookStatus {
	bin := o.gitHookBinary()
	dir, derr := hooksDir(o)
	if b, err := os.ReadFile(filepath.Join(o.Root, ".pre-commit-config.yaml")); err == nil && strings.Contains(string(b), "mbguard") {
		// the framework's own hook script says "File generated by pre-commit"
		if h, err := os.ReadFile(filepath.Join(dir, "pre-commit")); derr != nil || err != nil || !strings.Contains(string(h), "pre-commit") || !strings.Contains(string(h), "generated by pre-commit") {
			return GitHookStatus{Detail: ".pre-commit-config.yaml names mbguard, but git does not run the pre-commit framework", Next: "pre-commit install"}
		}
		return GitHookStatus{Installed: true, Detail: "pre-commit framework (.pre-commit-config.yaml)"}
	}
	if cfg := lefthookConfig(o.Root); cfg != "" {
		show := ghRel(o.Root, cfg)
		b, _ := os.ReadFile(cfg)
		if !strings.Contains(string(b), "mbguard") {
			return GitHookStatus{Detail: "lefthook (" + show + ") runs no mbguard command", Next: "mbguard install --hooks (adds it to " + show + ")"}
		}
		if !runsLefthook(o) {
			return GitHookStatus{Detail: show + " has the mbguard command, but git does not run lefthook", Next: "lefthook install"}
		}
		return GitHookStatus{Installed: true, Detail: "lefthook (" + show + ")"}
	}
	if derr == nil {
		p := filepath.Join(dir, "pre-commit")
		if b, err := os.ReadFile(p); err == nil && (strings.Contains(string(b), "mbguard check --staged") || strings.Contains(string(b), GitHookMarker)) {
			return GitHookStatus{Installed: true, Detail: "pre-commit hook in " + ghRel(o.Root, p)}
		}
	}
	if b, err := os.ReadFile(filepath.Join(o.Root, ".husky", "pre-commit")); err == nil && strings.Contains(string(b), "check --staged") {
		return GitHookStatus{Installed: true, Detail: "husky (.husky/pre-commit)"}
	}
	st := GitHookStatus{Detail: "no pre-commit hook runs mbguard check --staged", Next: "mbguard install --hooks"}
	if hp, _ := ghGit(o.Root, "config", "--get", "core.hooksPath"); hp != "" {
		if err := refuseHooksPath(o, hp, bin); err != nil {
			st.Detail += " (core.hooksPath is " + hp + ")"
			st.Next = refusalNext(err)
		}
	}
	return st
}

// refusalNext is the step a refuseHooksPath error names: the text after its colon.
func refusalNext(err error) string {
	var s string
	if err != nil {
		s = err.Error()
	}
	if _, after, ok := strings.Cut(s, ": "); ok {
		return after
	}
	return s
}
