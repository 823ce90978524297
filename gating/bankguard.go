package gating

import (
	"bytes"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/mbguard/mbguard/bank"
)

// bankGuard is the memory-bank write guard (seed 004), on in every mode. It returns the block
// message for the first violation ("" when none) and whether the call writes memory-bank files
// through a permitted route (for Doc-First and the writing guideline).
func (e *Engine) bankGuard(a *action, fx Facts, fold bool) (msg string, bankWrites bool) {
	if a.bad != "" {
		// A call the host would reject anyway, or a forged one: either way nobody can tell what
		// it writes, so it is refused in every mode rather than let through as nothing.
		return prefixBank + "blocked: mbguard cannot read this " + a.tool + " call: " + a.bad +
			". Next: retry the call with its arguments as the tool's schema describes them.", false
	}
	if a.kind == kindShell {
		return e.shellBankGuard(a, fx, fold)
	}
	for i := range a.writes {
		w := &a.writes[i]
		if w.op == opOpaque && w.touchesBank() {
			return prefixBank + "blocked: " + a.tool + " is a tool mbguard does not know, and it names " + w.rel +
				". Next: change memory-bank/ .md files with the host's own write/edit tool, which mbguard can check.", false
		}
		if !w.lexIn && isHome(w.lex) && hasBankSegment(w.lex) {
			// The engine has no $HOME, and Claude Code expands ~: this may be our own bank.
			return prefixBank + "blocked: " + w.raw + " may lead into memory-bank/ through your home directory. " +
				"Next: write it by its path inside the repository with the write/edit tool.", false
		}
		lexBank := w.lexInBank()
		resBank := w.relInBank()
		if !lexBank && !resBank {
			continue
		}
		// Only a path that is lexically inside the repository can escape through a symlink;
		// one that reaches the repository from outside (macOS /var → /private/var, a link to
		// the checkout) is judged by where it lands.
		if w.lexIn && lexBank != resBank {
			return symlinkMessage(w), false
		}
		if m := e.checkBankWrite(w, fx, fold); m != "" {
			return m, false
		}
		bankWrites = true
	}
	return "", bankWrites
}

func symlinkMessage(w *writeTarget) string {
	if w.lexIn && inBank(w.lex) {
		return prefixBank + "blocked: " + w.lex + " is a symlink that leads out of memory-bank/ (to " + w.rel +
			"). Next: write a real .md file inside memory-bank/ with the write/edit tool."
	}
	return prefixBank + "blocked: " + w.raw + " leads into " + w.rel + " through a symlink. Next: write " + w.rel +
		" by its own memory-bank/ path with the write/edit tool."
}

func (e *Engine) checkBankWrite(w *writeTarget, fx Facts, fold bool) string {
	rel := w.rel
	isEntry := rel == key(bankEntry, fold)
	if w.op == opDelete || w.op == opMoveFrom {
		if isEntry {
			return prefixBank + "blocked: " + rel + " is the memory bank's entry file and must not be deleted or moved. " +
				"Next: change its content with the edit tool instead."
		}
		return "" // removing a stray or obsolete file is tidying, not scribbling
	}
	if !isMarkdown(rel) && !e.allowedBankFile(rel) {
		return prefixBank + "blocked: memory-bank/ holds only Markdown, and " + rel + " is not an .md file. " +
			"Next: use the write/edit tool on an .md path such as " + mdPath(rel) + "."
	}
	old, exists := fx.Read(rel)
	base, baseOK := old, exists
	if w.op == opPatch && w.src != rel {
		base, baseOK = fx.Read(w.src) // a move edits the source's content on the way
	}
	next, added, known := proposedContent(w, base, baseOK)
	if n := max(len(next), len(added)); e.Policy.MaxBankFile > 0 && n > e.Policy.MaxBankFile {
		return prefixBank + "blocked: the new content for " + rel + " is " + sizeOver(n, e.Policy.MaxBankFile) + ", over the " +
			megabytes(e.Policy.MaxBankFile) + " a memory-bank/ file may hold (mbguard check refuses larger ones at commit). " +
			"Next: keep the memory short: write a summary, and keep large data outside memory-bank/."
	}
	if m := checkBlocks(rel, isEntry, base, baseOK, next, known, w.op); m != "" {
		return m
	}
	if !baseOK {
		base = ""
	}
	return checkContent(fx, rel, isEntry, base, next, added, known)
}

// checkContent judges what the write leaves in the file: its structure and its secrets, looked
// for in the resulting file around the change so that a token assembled from two edits (half
// in each) is seen whole; in the added text alone when the result is not known.
func checkContent(fx Facts, rel string, isEntry bool, base, next, added string, known bool) string {
	if !known {
		if strings.TrimSpace(added) != "" {
			if ids := fx.Secrets(rel, added); len(ids) > 0 {
				return secretMessage(rel, ids)
			}
		}
		return ""
	}
	if m := checkResult(rel, isEntry, base, next); m != "" {
		return m
	}
	newRegion, oldRegion := changedRegion(base, next)
	if strings.TrimSpace(newRegion) == "" {
		return ""
	}
	if ids := newSecrets(fx, rel, newRegion, oldRegion); len(ids) > 0 {
		return secretMessage(rel, ids)
	}
	return ""
}

// proposedContent is what a write leaves in the file (known is false when that cannot be
// told: an edit or patch that does not apply, a notebook cell) and the text it adds.
func proposedContent(w *writeTarget, base string, baseOK bool) (next, added string, known bool) {
	switch w.op {
	case opWrite:
		return w.content, w.content, true
	case opEdit:
		if !baseOK {
			base = ""
		}
		next, known = applyEdits(base, w.edits)
		var b strings.Builder
		for _, ed := range w.edits {
			b.WriteString(ed.new)
			b.WriteByte('\n')
		}
		return next, b.String(), known
	case opPatch:
		if baseOK {
			next, known = w.patch.Apply(base)
		}
		return next, w.patch.Added, known
	case opPartial:
		return "", w.content, false
	}
	return "", "", false
}

// ScanErrorRule is the rule id Facts.Secrets reports when the scan could not run (a broken
// .gitleaks.toml, mbguard-hook without the mbguard beside it): the write is refused unchecked.
const ScanErrorRule = "secret-scan-error"

func secretMessage(rel string, ids []string) string {
	if slices.Contains(ids, ScanErrorRule) {
		return prefixBank + "blocked: the new content for " + rel + " could not be scanned for secrets, so it is not written. " +
			"Next: run mbguard doctor, which names what stops the scan, and retry."
	}
	return prefixBank + "blocked: the new content for " + rel + " contains a secret (" + strings.Join(ids, ", ") +
		"). Next: remove it and retry; credentials never belong in memory-bank/."
}

// newSecrets returns the rule ids found in the changed region more often than in the region
// it replaces: a secret the file already held next to the change is not the agent's doing.
func newSecrets(fx Facts, rel, newRegion, oldRegion string) []string {
	ids := fx.Secrets(rel, newRegion)
	if len(ids) == 0 || strings.TrimSpace(oldRegion) == "" {
		return ids
	}
	had := map[string]int{}
	for _, id := range fx.Secrets(rel, oldRegion) {
		had[id]++
	}
	var out []string
	for _, id := range ids {
		if had[id] > 0 {
			had[id]--
			continue
		}
		out = append(out, id)
	}
	return out
}

// regionContext bounds how far a changed region grows to the surrounding paragraph, in lines
// each way; a secret rule never spans more.
const regionContext = 12

// changedRegion returns the lines of next that differ from old, grown to the blank-line
// bounded paragraph around them (at most regionContext lines each way), and the same
// stretch of old. Lines common to both ends are left out, so a small edit of a large file
// scans a few lines, not the file.
func changedRegion(old, next string) (newRegion, oldRegion string) {
	if old == "" {
		return next, ""
	}
	ol := strings.SplitAfter(old, "\n")
	nl := strings.SplitAfter(next, "\n")
	pre := 0
	for pre < len(ol) && pre < len(nl) && ol[pre] == nl[pre] {
		pre++
	}
	if pre == len(ol) && pre == len(nl) {
		return "", "" // nothing changed
	}
	suf := 0
	for suf < len(ol)-pre && suf < len(nl)-pre && ol[len(ol)-1-suf] == nl[len(nl)-1-suf] {
		suf++
	}
	return growRegion(nl, pre, len(nl)-suf), growRegion(ol, pre, len(ol)-suf)
}

// growRegion joins lines[from:to] with up to regionContext lines of their paragraph on each
// side, and one line more.
func growRegion(lines []string, from, to int) string {
	for i := 0; i < regionContext && from > 0 && strings.TrimSpace(lines[from-1]) != ""; i++ {
		from--
	}
	for i := 0; i < regionContext && to < len(lines) && strings.TrimSpace(lines[to]) != ""; i++ {
		to++
	}
	if from > 0 {
		from-- // the line before, even past a blank one: "key:\n\n  value"
	}
	if to < len(lines) {
		to++
	}
	return strings.Join(lines[from:to], "")
}

// checkResult judges the file a write produces beyond its blocks: a new near-miss marker (one
// a reader would take for a real one), and in MEMORY.md a template marker removed or lowered.
func checkResult(rel string, isEntry bool, old, next string) string {
	ns := bank.ScanMarkers([]byte(next))
	var was bank.Scan
	if old != "" {
		was = bank.ScanMarkers([]byte(old))
	}
	if len(ns.NearMiss) > len(was.NearMiss) {
		nm := ns.NearMiss[len(ns.NearMiss)-1]
		for _, x := range ns.NearMiss {
			if !hasNearMiss(was.NearMiss, x.Text) {
				nm = x
				break
			}
		}
		return prefixBank + "blocked: " + rel + ":" + itoa(nm.Line) + " has " + quote(nm.Text) +
			", which looks like a block marker but is not one. Next: write it exactly as " + nm.Suggest.String() +
			", or leave it out."
	}
	if !isEntry {
		return ""
	}
	ov, had := bestTemplate(was)
	if !had {
		return ""
	}
	nv, has := bestTemplate(ns)
	switch {
	case !has:
		return prefixBank + "blocked: this write would remove the template marker " + bank.TemplateMarker(ov) + " from " + rel +
			". Next: retry keeping that line as it is."
	case nv.Less(ov):
		return prefixBank + "blocked: this write would lower " + rel + "'s template version from " + ov.String() + " to " + nv.String() +
			". Next: keep " + bank.TemplateMarker(ov) + "; only mbguard upgrade changes it."
	}
	return ""
}

func hasNearMiss(list []bank.NearMiss, text string) bool {
	for _, x := range list {
		if x.Text == text {
			return true
		}
	}
	return false
}

func bestTemplate(s bank.Scan) (bank.Version, bool) {
	var best bank.Version
	found := false
	for _, t := range s.Templates {
		if t.Valid && (!found || best.Less(t.Version)) {
			best, found = t.Version, true
		}
	}
	return best, found
}

func quote(s string) string {
	if len(s) > 60 {
		s = s[:60] + "…"
	}
	return `"` + s + `"`
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}

// checkBlocks keeps the block markers well formed and USER_BLOCK byte-identical.
func checkBlocks(rel string, isEntry bool, old string, exists bool, next string, known bool, op writeOp) string {
	ob, had := oldBlocks(old, exists)
	if !known {
		return unknownResult(rel, had, op)
	}
	nb, nok := bank.ParseBlocks([]byte(next))
	switch {
	case !nok && (had || len(bank.ScanMarkers([]byte(next)).Markers) > 0):
		return prefixBank + "blocked: this write would leave malformed block markers in " + rel +
			" (each START before its END, once each, not nested). Next: retry keeping every <!-- ..._BLOCK_START/END --> line intact."
	case had && (ob.HasMachine && !nb.HasMachine || ob.HasUser && !nb.HasUser):
		return prefixBank + "blocked: this write would remove block markers from " + rel +
			". Next: retry keeping the MACHINE_BLOCK and USER_BLOCK markers in place."
	case isEntry && (!nb.HasMachine || !nb.HasUser):
		return prefixBank + "blocked: " + rel + " must keep both a MACHINE_BLOCK and a USER_BLOCK. " +
			"Next: retry with both blocks' markers present."
	case had && userBlockChanged(ob, old, next):
		return prefixBank + "blocked: this write would change the USER_BLOCK of " + rel +
			", which belongs to the user. Next: change only text outside <!-- USER_BLOCK_START --> … <!-- USER_BLOCK_END -->."
	}
	return ""
}

// unknownResult refuses a change whose result cannot be told to a file that has blocks.
func unknownResult(rel string, had bool, op writeOp) string {
	if !had {
		return ""
	}
	what := "the edit's oldString is not in the file verbatim"
	if op == opPatch {
		what = "the patch does not apply to the file as it is"
	}
	return prefixBank + "blocked: " + what + ", so mbguard cannot check that " + rel +
		" keeps its block markers and USER_BLOCK. Next: read " + rel + " again and retry with its exact text."
}

// oldBlocks parses the blocks of the file as it is; had is whether it has any.
func oldBlocks(old string, exists bool) (ob bank.Blocks, had bool) {
	if !exists {
		return ob, false
	}
	ob, ok := bank.ParseBlocks([]byte(old))
	return ob, ok && (ob.HasMachine || ob.HasUser)
}

// userBlockChanged reports whether next changes the USER_BLOCK the file had.
func userBlockChanged(ob bank.Blocks, old, next string) bool {
	if !ob.HasUser {
		return false
	}
	ou, _ := bank.UserBlock([]byte(old))
	nu, _ := bank.UserBlock([]byte(next))
	return !bytes.Equal(ou, nu)
}

func (e *Engine) allowedBankFile(rel string) bool {
	b := path.Base(rel)
	for _, a := range e.Policy.AllowedBankFiles {
		if strings.EqualFold(a, b) {
			return true
		}
	}
	return false
}

// mdPath suggests the .md name for a non-Markdown bank path.
func mdPath(rel string) string {
	ext := path.Ext(rel)
	if ext == "" || strings.Contains(ext, "/") {
		return rel + ".md"
	}
	return strings.TrimSuffix(rel, ext) + ".md"
}

// shellBankGuard keeps shell commands out of memory-bank/: their effect on markers, USER_BLOCK
// and secrets cannot be checked before they run. Inline interpreter code (python -c …) needs no
// rule of its own: the classifier reports the paths it writes, or an unknown write, and an
// interpreter that only reads the bank (copying MEMORY.md to /tmp) is no threat to it.
func (e *Engine) shellBankGuard(a *action, fx Facts, fold bool) (string, bool) {
	if !a.isWrite() {
		return "", false
	}
	if a.tooDeep {
		return prefixBank + "blocked: batch calls nested this deep cannot be checked." +
			" Next: make the calls directly, or in one flat batch.", false
	}
	if msg := shellWholeWrites(a, fx, fold); msg != "" {
		return msg, false
	}
	if msg := shellUnknownWrite(a, fx); msg != "" {
		return msg, false
	}
	var targets []*writeTarget
	for i := range a.writes {
		if w := &a.writes[i]; w.touchesBank() {
			targets = append(targets, w)
		}
	}
	if len(targets) == 0 {
		return "", false
	}
	if !e.Policy.ShellMarkdownWrites {
		return prefixBank + "blocked: shell writes into memory-bank/ are not allowed (" + targets[0].rel + ")." + nextWriteTool, false
	}
	for _, w := range targets {
		if msg := e.shellBankFile(w, fold); msg != "" {
			return msg, false
		}
	}
	return "", true
}

// nextWriteTool ends the messages of shell writes into memory-bank/.
const nextWriteTool = " Next: use the write/edit tool on the memory-bank/ .md file instead."

// shellWholeWrites refuses shell writes that take in memory-bank/ without naming a file in it: a
// folder written at any depth, a home path, a git command that rewrites the work tree.
func shellWholeWrites(a *action, fx Facts, fold bool) string {
	root := key(slashClean(fx.Root()), fold)
	var bankStatus *bankState
	for i := range a.writes {
		if msg := shellWholeWrite(&a.writes[i], fx, root, fold, &bankStatus); msg != "" {
			return msg
		}
	}
	return ""
}

func shellWholeWrite(w *writeTarget, fx Facts, root string, fold bool, bankStatus **bankState) string {
	if !w.lexIn && isHome(w.lex) && hasBankSegment(w.lex) {
		return prefixBank + "blocked: this shell command writes " + w.raw + ", which may lead into memory-bank/ through your home directory." + nextWriteTool
	}
	if copyOp(w.shellOp) && w.shellTree && !w.lexIn {
		// cp "$f" /tmp/ makes one entry directly in /tmp: it reaches a repository below
		// /tmp only if that entry is named like the repository's own folder.
		return ""
	}
	if !(w.shellExact || w.shellTree) || w.shellNoMD || w.relInBank() ||
		!(reachesBank(w.lex, w.lexIn, root, fold) || reachesBank(w.rel, w.inRepo, root, fold)) {
		return ""
	}
	switch {
	case strings.HasPrefix(w.shellOp, "git "):
		return gitWholeTree(w, fx, bankStatus)
	case w.shellExclude != "":
		return prefixBank + "blocked: " + w.shellOp + " would rewrite the Markdown files in memory-bank/ (it is run on " + w.lex + ")." +
			" Next: leave the bank out: `" + w.shellExclude + "`."
	}
	return prefixBank + "blocked: this shell command writes " + w.lex + ", which takes in memory-bank/." +
		" Next: name the files outside memory-bank/ explicitly, and change memory-bank/ .md files with the write/edit tool."
}

// gitWholeTree judges a git command that rewrites the work tree memory-bank/ is in: the bank
// loses nothing a commit does not hold when it has no uncommitted work.
func gitWholeTree(w *writeTarget, fx Facts, bankStatus **bankState) string {
	changed, known := bankChanges(fx, bankStatus)
	switch {
	case known && len(changed) == 0 && inPlaceGit[w.shellOp]:
		return ""
	case known && len(changed) == 0:
		// a forced move to another commit: the bank's committed memory would give way
		// to that commit's, whatever it holds
		return prefixBank + "blocked: " + w.shellOp + " replaces the whole work tree, memory-bank/ included, with another commit's content." +
			" Next: switch without forcing (`git switch <branch>`, `git merge`), whose bank changes mbguard judges after the call, or name the paths outside memory-bank/, e.g. `git checkout <commit> -- src/`."
	case known:
		return prefixBank + "blocked: " + w.shellOp + " rewrites " + w.lex + " as a whole and would discard the uncommitted work in memory-bank/ (" +
			listSome(changed, 5) + "). Next: commit it first (`git add memory-bank && git commit -m \"memory bank\"`), or name the paths outside memory-bank/, e.g. `git checkout -- src/`."
	}
	return prefixBank + "blocked: " + w.shellOp + " rewrites " + w.lex + " as a whole, memory-bank/ included." +
		" Next: name the paths outside memory-bank/, e.g. `git checkout -- src/`, `git clean -fd -- src/` or `git stash push -- src/`."
}

// shellUnknownWrite refuses a write mbguard cannot place when the command may well aim it at
// memory-bank/.
func shellUnknownWrite(a *action, fx Facts) string {
	if !a.shellUnknown {
		return ""
	}
	if cwd := canon(a.cwd, "", fx); cwd.touchesBank() {
		return prefixBank + "blocked: this shell command runs inside memory-bank/ and writes somewhere mbguard cannot determine." + nextWriteTool
	}
	// An undeterminable write in a command that names memory-bank/ (cd memory-bank && … > $F)
	// may well land there; an unrelated one (make > $LOG) does not name it.
	if namesPath(a.named, bankDir) {
		return prefixBank + "blocked: this shell command names memory-bank/ and writes somewhere mbguard cannot determine." + nextWriteTool
	}
	return ""
}

// shellBankFile judges one file a shell command writes in memory-bank/.
func (e *Engine) shellBankFile(w *writeTarget, fold bool) string {
	switch {
	case w.lexIn && w.lexInBank() != w.relInBank():
		return symlinkMessage(w)
	case w.rel == key(bankEntry, fold):
		return prefixBank + "blocked: " + w.rel + " may change only through the write/edit tool, which checks its blocks." + nextWriteTool
	case !isMarkdown(w.rel) && !e.allowedBankFile(w.rel):
		return prefixBank + "blocked: shell writes into memory-bank/ are allowed for .md files only (" + w.rel + ")." + nextWriteTool
	}
	return ""
}

// copyOp reports the shell operations that put named entries directly into a directory.
func copyOp(op string) bool {
	switch op {
	case "cp", "mv", "install", "ln", "link":
		return true
	}
	return false
}

// reachesBank reports whether a shell write target p (canonical, as canonPath spells it) is
// memory-bank/ itself, one of its ancestors (rm -rf ., tar x at the root), or a glob that can
// match either (rm -rf *, rm -f */MEMORY.md, memory-ban[k]).
func reachesBank(p string, in bool, root string, fold bool) bool {
	// the segments leading to memory-bank/, from where p starts
	want := bankDir
	if !in {
		if root == "/" {
			want = "/" + bankDir
		} else {
			want = root + "/" + bankDir
		}
	} else if p == "." {
		return true
	}
	pat := strings.TrimPrefix(p, "/")
	want = strings.TrimPrefix(want, "/")
	for pat != "" && want != "" {
		ps, prest, _ := strings.Cut(pat, "/")
		ws, wrest, _ := strings.Cut(want, "/")
		if !segMatch(ps, ws, fold) {
			return false
		}
		pat, want = prest, wrest
	}
	return true
}

// segMatch matches one path segment, glob or literal, against a name. A pattern the
// matcher cannot read (bash extglobs) may match anything.
func segMatch(pat, name string, fold bool) bool {
	if fold {
		pat, name = strings.ToLower(pat), strings.ToLower(name)
	}
	if pat == name {
		return true
	}
	if !strings.ContainsAny(pat, "*?[(") {
		return false
	}
	if strings.Contains(pat, "(") {
		return true
	}
	ok, err := path.Match(pat, name)
	return ok || err != nil
}

// isHome reports a path Canon kept as a home-relative one (~/x became /~/x).
func isHome(p string) bool { _, ok := underDir(p, "/~"); return ok }

// hasBankSegment reports a memory-bank segment anywhere in p.
func hasBankSegment(p string) bool {
	for rest := p; rest != ""; {
		var seg string
		seg, rest, _ = strings.Cut(rest, "/")
		if seg == bankDir {
			return true
		}
	}
	return false
}

// sizeOver renders n, which exceeds limit, so that it reads larger than limit does: "50.0 MB",
// or in bytes when both would round alike ("10485761 bytes", never "10 MB, over the 10 MB").
func sizeOver(n, limit int) string {
	if s := megabytes(n); s != megabytes(limit) && s != strconv.Itoa(limit>>20)+".0 MB" {
		return s
	}
	return strconv.Itoa(n) + " bytes"
}

// megabytes renders n bytes as "50.0 MB", or "10 MB" when exact.
func megabytes(n int) string {
	if n%(1<<20) == 0 {
		return strconv.Itoa(n>>20) + " MB"
	}
	return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MB"
}

// inPlaceGit are the whole-tree git commands that only drop local changes (the classifier
// names any commit they move to in the op: git reset HEAD~1, git checkout -f main): with no
// uncommitted work in the bank they leave it as committed.
var inPlaceGit = map[string]bool{"git reset": true, "git stash": true, "git clean": true, "git checkout -f": true,
	"git checkout": true, "git restore": true}

// bankState is what BankStatuser said, asked once per call.
type bankState struct {
	files []string
	known bool
}

// bankChanges asks fx, once, which bank files hold uncommitted work.
func bankChanges(fx Facts, st **bankState) ([]string, bool) {
	if *st == nil {
		*st = &bankState{}
		if b, ok := fx.(BankStatuser); ok {
			(*st).files, (*st).known = b.BankChanges()
		}
	}
	return (*st).files, (*st).known
}

// listSome joins up to n items, saying how many more there are.
func listSome(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:n], ", ") + fmt.Sprintf(" and %d more", len(items)-n)
}
