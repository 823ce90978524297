package gating

import (
	"crypto/rand"
	"strings"
	"testing"
)

// The red-team table: every way we could think of for an agent to write into memory-bank/
// through either host's tools, each run with every gate off, warned and blocking. The bank
// guard must hold in all three; the legitimate calls at the end must never meet it.

// call is one tool call as a host sends it.
type call struct {
	host string // "opencode" or "claude"
	tool string
	args map[string]any
	cwd  string // the event's directory; the repository root when empty
}

func oc(tool string, args map[string]any) call { return call{host: "opencode", tool: tool, args: args} }
func cc(tool string, args map[string]any) call { return call{host: "claude", tool: tool, args: args} }

// in runs c from the directory dir (OpenCode's and Claude Code's cwd).
func in(dir string, c call) call { c.cwd = dir; return c }

// abs spells a repository path the way Claude Code sends it.
func abs(p string) string { return testRoot + "/" + p }

func ocWrite(p, content string) call {
	return oc("write", map[string]any{"filePath": p, "content": content})
}
func ccWrite(p, content string) call {
	return cc("Write", map[string]any{"file_path": abs(p), "content": content})
}
func ocEdit(p, old, new string) call {
	return oc("edit", map[string]any{"filePath": p, "oldString": old, "newString": new})
}
func ccEdit(p, old, new string) call {
	return cc("Edit", map[string]any{"file_path": abs(p), "old_string": old, "new_string": new})
}
func ocBash(cmd string) call { return oc("bash", map[string]any{"command": cmd, "description": "x"}) }
func ocBashIn(wd, cmd string) call {
	return oc("bash", map[string]any{"command": cmd, "workdir": wd, "description": "x"})
}
func ccBash(cmd string) call   { return cc("Bash", map[string]any{"command": cmd, "description": "x"}) }
func ocPatch(text string) call { return oc("apply_patch", map[string]any{"patchText": text}) }
func codex(body string) string { return "*** Begin Patch\n" + body + "*** End Patch" }
func ocBatch(calls ...call) call {
	var tc []any
	for _, c := range calls {
		tc = append(tc, map[string]any{"tool": c.tool, "parameters": c.args})
	}
	return oc("batch", map[string]any{"tool_calls": tc})
}

type outcome int

const (
	bankBlock outcome = iota // Block by the bank guard in every mode
	passes                   // never the bank guard; Allow with every gate off
	readOnly                 // Allow in every mode, no write at all
)

type redCase struct {
	name  string
	c     call
	prep  func(fx *memFacts)
	want  outcome
	inMsg []string
}

// testSecret is a token made up for this run that memFacts.Secrets recognises (ghp_ prefix).
var testSecret = "ghp_" + strings.ToLower(rand.Text()) + "0123456789"

func docsLink(fx *memFacts)  { fx.links[testRoot+"/docs"] = testRoot + "/memory-bank" }
func outLink(fx *memFacts)   { fx.links[testRoot+"/memory-bank/out"] = "/tmp/elsewhere" }
func foldFS(fx *memFacts)    { fx.ci = true }
func withStray(fx *memFacts) { fx.files["memory-bank/old.json"] = "{}" }
func userChanged() string {
	return strings.Replace(memoryMD, "my own notes, hands off", "agent notes", 1)
}
func markerDropped() string { return strings.Replace(memoryMD, "<!-- USER_BLOCK_END -->\n", "", 1) }
func focusChanged() string {
	return strings.Replace(memoryMD, "- Remaining: tests", "- Remaining: docs", 1)
}
func secretNote() string { return "# Tech\ntoken: " + testSecret + "\n" }

func redTeamCases() []redCase {
	return []redCase{
		// --- write tools: paths ---
		{name: "oc write relative json", c: ocWrite("memory-bank/x.json", "{}"), inMsg: []string{"memory-bank/x.md"}},
		{name: "cc Write absolute json", c: ccWrite("memory-bank/x.json", "{}"), inMsg: []string{"memory-bank/x.md"}},
		{name: "oc write absolute json", c: ocWrite(abs("memory-bank/details/x.yaml"), "a: 1")},
		{name: "oc write dot-dot round trip", c: ocWrite("./memory-bank/../memory-bank/x.json", "{}")},
		{name: "cc Write dot-dot from src", c: cc("Write", map[string]any{"file_path": abs("src/../memory-bank/x.json"), "content": "{}"})},
		{name: "oc write backslashes", c: ocWrite(`memory-bank\details\x.json`, "{}")},
		{name: "oc write trailing slash", c: ocWrite("memory-bank/details/notes/", "x")},
		{name: "oc write double slashes", c: ocWrite("memory-bank//details///x.txt", "x")},
		{name: "oc write the bank dir itself", c: ocWrite("memory-bank", "x")},
		{name: "oc write md.json", c: ocWrite("memory-bank/x.md.json", "{}")},
		{name: "oc write md with trailing space", c: ocWrite("memory-bank/x.md ", "x")},
		{name: "oc write home-relative into the bank", c: ocWrite("~/proj/memory-bank/x.json", "{}")},
		{name: "cc Write NUL-suffixed md", c: ccWrite("memory-bank/x.json\x00.md", "{}")},
		{name: "oc write uppercase on a folding fs", c: ocWrite("Memory-Bank/x.json", "{}"), prep: foldFS},
		{name: "cc Write upper root on a folding fs", c: cc("Write", map[string]any{"file_path": "/REPO/MEMORY-BANK/x.json", "content": "{}"}), prep: foldFS},
		{name: "oc write through docs symlink", c: ocWrite("docs/x.json", "{}"), prep: docsLink, inMsg: []string{"symlink"}},
		{name: "cc Write md through docs symlink", c: ccWrite("docs/tech.md", "# T\n"), prep: docsLink, inMsg: []string{"symlink"}},
		{name: "oc write out through a bank symlink", c: ocWrite("memory-bank/out/x.md", "x"), prep: outLink, inMsg: []string{"symlink"}},
		{name: "oc write relative to a src cwd", c: in(abs("src"), ocWrite("../memory-bank/x.json", "{}"))},
		{name: "cc Bash from a src cwd", c: in(abs("src"), ccBash("echo x > ../memory-bank/x.json"))},
		{name: "cc Bash from inside the bank", c: in(abs("memory-bank/details"), ccBash("touch x.json"))},
		{name: "cc Write home-relative into the bank", c: cc("Write", map[string]any{"file_path": "~/proj/memory-bank/x.json", "content": "{}"})},
		{name: "cc NotebookEdit in the bank", c: cc("NotebookEdit", map[string]any{"notebook_path": abs("memory-bank/n.ipynb"), "new_source": "x"})},
		{name: "oc write paths array", c: oc("write", map[string]any{"paths": []any{"src/a.ts", "memory-bank/a.ts"}, "content": "x"})},
		{name: "oc write two path keys", c: oc("write", map[string]any{"filePath": "src/a.ts", "file_path": "memory-bank/a.ts", "content": "x"})},
		// --- edit tools ---
		{name: "oc edit creating json", c: ocEdit("memory-bank/new.json", "", "{}")},
		{name: "cc Edit json", c: ccEdit("memory-bank/old.json", "{}", `{"a":1}`), prep: withStray},
		{name: "oc edit user block", c: ocEdit("memory-bank/MEMORY.md", "my own notes, hands off", "mine"), inMsg: []string{"USER_BLOCK"}},
		{name: "cc Edit user block", c: ccEdit("memory-bank/MEMORY.md", "hands off", "hands on"), inMsg: []string{"USER_BLOCK"}},
		{name: "oc edit dropping a marker", c: ocEdit("memory-bank/MEMORY.md", "<!-- MACHINE_BLOCK_START -->\n", "")},
		{name: "cc Edit dropping the user block", c: ccEdit("memory-bank/MEMORY.md", "<!-- USER_BLOCK_START -->\nmy own notes, hands off\n<!-- USER_BLOCK_END -->\n", "")},
		{name: "cc Edit replace_all across blocks", c: cc("Edit", map[string]any{"file_path": abs("memory-bank/MEMORY.md"), "old_string": "o", "new_string": "0", "replace_all": true})},
		{name: "oc multiedit user block second", c: oc("multiedit", map[string]any{"filePath": "memory-bank/MEMORY.md", "edits": []any{
			map[string]any{"oldString": "A demo.", "newString": "A demo app."},
			map[string]any{"oldString": "hands off", "newString": "open"}}})},
		{name: "cc MultiEdit removing markers", c: cc("MultiEdit", map[string]any{"file_path": abs("memory-bank/MEMORY.md"), "edits": []any{
			map[string]any{"old_string": "<!-- MACHINE_BLOCK_END -->", "new_string": ""}}})},
		{name: "oc multiedit per-edit path into the bank", c: oc("multiedit", map[string]any{"filePath": "src/app.ts", "edits": []any{
			map[string]any{"filePath": "memory-bank/x.json", "oldString": "", "newString": "{}"}}})},
		{name: "oc edit not verbatim", c: ocEdit("memory-bank/MEMORY.md", "Remaining:  tests", "Remaining: docs"), inMsg: []string{"again"}},
		{name: "oc write MEMORY.md changing user block", c: ocWrite("memory-bank/MEMORY.md", userChanged())},
		{name: "cc Write MEMORY.md without markers", c: ccWrite("memory-bank/MEMORY.md", "# Memory\n")},
		{name: "oc write MEMORY.md empty", c: ocWrite("memory-bank/MEMORY.md", "")},
		{name: "cc Write MEMORY.md malformed", c: ccWrite("memory-bank/MEMORY.md", markerDropped())},
		// --- patches ---
		{name: "patch add json", c: ocPatch(codex("*** Add File: memory-bank/x.json\n+{}\n"))},
		{name: "patch add absolute json", c: ocPatch(codex("*** Add File: " + abs("memory-bank/x.json") + "\n+{}\n"))},
		{name: "patch add dot-dot json", c: ocPatch(codex("*** Add File: ./memory-bank/../memory-bank/x.json\n+{}\n"))},
		{name: "patch add with CRLF", c: ocPatch(strings.ReplaceAll(codex("*** Add File: memory-bank/x.json\n+{}\n"), "\n", "\r\n"))},
		{name: "patch add with indented header", c: ocPatch("*** Begin Patch\n  *** Add File: memory-bank/x.json\n+{}\n*** End Patch")},
		{name: "patch delete MEMORY.md", c: ocPatch(codex("*** Delete File: memory-bank/MEMORY.md\n")), inMsg: []string{"entry file"}},
		{name: "patch move MEMORY.md away", c: ocPatch(codex("*** Update File: memory-bank/MEMORY.md\n*** Move to: memory-bank/OLD.md\n"))},
		{name: "patch move md to json", c: ocPatch(codex("*** Update File: memory-bank/details/tech.md\n*** Move to: memory-bank/details/tech.json\n@@\n-# Tech\n+# Tech!\n"))},
		{name: "patch move code into the bank", c: ocPatch(codex("*** Update File: src/app.ts\n*** Move to: memory-bank/app.ts\n"))},
		{name: "patch update user block", c: ocPatch(codex("*** Update File: memory-bank/MEMORY.md\n@@\n <!-- USER_BLOCK_START -->\n-my own notes, hands off\n+mine\n"))},
		{name: "patch update dropping markers", c: ocPatch(codex("*** Update File: memory-bank/MEMORY.md\n@@\n-<!-- MACHINE_BLOCK_END -->\n"))},
		{name: "patch tool unified add json", c: oc("patch", map[string]any{"patchText": "--- /dev/null\n+++ b/memory-bank/x.json\n@@ -0,0 +1 @@\n+{}\n"})},
		{name: "patch tool unified delete MEMORY.md", c: oc("patch", map[string]any{"patchText": "diff --git a/memory-bank/MEMORY.md b/memory-bank/MEMORY.md\ndeleted file mode 100644\n--- a/memory-bank/MEMORY.md\n+++ /dev/null\n@@ -1 +0,0 @@\n-# Project Memory\n"})},
		{name: "patch add through docs symlink", c: ocPatch(codex("*** Add File: docs/x.md\n+x\n")), prep: docsLink},
		// --- secrets ---
		{name: "oc write secret", c: ocWrite("memory-bank/details/tech.md", secretNote()), inMsg: []string{"secret"}},
		{name: "cc Write secret", c: ccWrite("memory-bank/details/learnings/ci.md", secretNote()), inMsg: []string{"secret"}},
		{name: "oc edit secret", c: ocEdit("memory-bank/details/tech.md", "# Tech\n", secretNote()), inMsg: []string{"secret"}},
		{name: "cc MultiEdit secret", c: cc("MultiEdit", map[string]any{"file_path": abs("memory-bank/details/tech.md"), "edits": []any{
			map[string]any{"old_string": "# Tech\n", "new_string": secretNote()}}}), inMsg: []string{"secret"}},
		{name: "patch add secret", c: ocPatch(codex("*** Add File: memory-bank/details/s.md\n+" + testSecret + "\n")), inMsg: []string{"secret"}},
		{name: "patch update secret", c: ocPatch(codex("*** Update File: memory-bank/details/tech.md\n@@\n # Tech\n+k=" + testSecret + "\n")), inMsg: []string{"secret"}},
		{name: "cc NotebookEdit secret md", c: cc("NotebookEdit", map[string]any{"notebook_path": abs("memory-bank/n.md"), "new_source": testSecret})},
		// --- batch ---
		{name: "batch write json", c: ocBatch(ocWrite("memory-bank/x.json", "{}"))},
		{name: "batch bash redirect", c: ocBatch(ocWrite("src/a.ts", "x"), ocBash("echo x > memory-bank/x.md"))},
		{name: "batch nested too deep", c: ocBatch(ocBatch(ocBatch(ocBatch(ocWrite("memory-bank/x.json", "{}")))))},
		// --- shell: redirects ---
		{name: "sh >", c: ocBash("echo x > memory-bank/x.json")},
		{name: "sh >>", c: ccBash("echo '- done' >> memory-bank/details/progress.md")},
		{name: "sh &>", c: ocBash("make &> memory-bank/build.log")},
		{name: "sh >|", c: ocBash("echo x >| memory-bank/x.md")},
		{name: "sh no spaces", c: ocBash("echo x>memory-bank/x.json")},
		{name: "sh fd redirect", c: ocBash("echo x 1>memory-bank/x.json 2>&1")},
		{name: "sh bare redirect truncates", c: ccBash(": > memory-bank/MEMORY.md")},
		{name: "sh exec fd", c: ocBash("exec 3>memory-bank/x.json; echo x >&3")},
		{name: "sh heredoc cat", c: ocBash("cat > memory-bank/x.md <<EOF\n# x\nEOF")},
		{name: "sh printf MEMORY.md", c: ccBash("printf '# m\\n' > memory-bank/MEMORY.md")},
		{name: "sh quoted target", c: ocBash(`echo x > "memory-bank/x.json"`)},
		{name: "sh group redirect", c: ocBash("{ echo a; echo b; } > memory-bank/x.json")},
		{name: "sh if body", c: ocBash("if true; then echo x > memory-bank/x.json; fi")},
		{name: "sh function body", c: ocBash("f() { echo x > memory-bank/x.json; }; f")},
		{name: "sh variable target", c: ocBash("f=memory-bank/x.json; echo x > $f")},
		{name: "sh partly variable target", c: ocBash("echo x > memory-bank/$NAME")},
		{name: "sh pwd target", c: ccBash(`echo x > "$(pwd)/memory-bank/x.json"`)},
		{name: "sh substitution writes", c: ocBash("echo $(echo x > memory-bank/x.json)")},
		{name: "sh process substitution", c: ocBash("diff <(echo a) <(echo b > memory-bank/x.json)")},
		// --- shell: coreutils ---
		{name: "sh tee", c: ocBash("echo x | tee memory-bank/notes.txt >/dev/null")},
		{name: "sh tee -a", c: ccBash("echo x | tee -a memory-bank/MEMORY.md")},
		{name: "sh sed -i", c: ocBash("sed -i 's/a/b/' memory-bank/MEMORY.md")},
		{name: "sh sed --in-place", c: ocBash("sed --in-place=.bak 's/a/b/' memory-bank/details/tech.md")},
		{name: "sh perl -pi -e", c: ocBash("perl -pi -e 's/a/b/' memory-bank/MEMORY.md")},
		{name: "sh cp into dir", c: ocBash("cp src/app.ts memory-bank/")},
		{name: "sh cp -t", c: ocBash("cp -t memory-bank src/app.ts")},
		{name: "sh cp to dir name", c: ccBash("cp src/app.ts memory-bank")},
		{name: "sh mv in", c: ocBash("mv src/app.ts memory-bank/app.ts")},
		{name: "sh mv MEMORY.md out", c: ccBash("mv memory-bank/MEMORY.md /tmp/")},
		{name: "sh rm", c: ocBash("rm memory-bank/details/tech.md")},
		{name: "sh rm -rf bank", c: ccBash("rm -rf memory-bank")},
		{name: "sh rm -rf bank slash", c: ocBash("rm -rf ./memory-bank/")},
		{name: "sh rm glob in bank", c: ocBash("rm memory-bank/*.json")},
		{name: "sh rm star at root", c: ocBash("rm -rf *")},
		{name: "sh rm m-star", c: ocBash("rm -rf mem*")},
		{name: "sh rm star MEMORY", c: ocBash("rm -f */MEMORY.md")},
		{name: "sh rm class glob", c: ocBash("rm -rf memory-ban[k]")},
		{name: "sh rm -rf dot", c: ocBash("rm -rf .")},
		{name: "sh rm -rf root abs", c: ccBash("rm -rf " + testRoot)},
		{name: "sh escaped rm", c: ocBash(`\rm memory-bank/MEMORY.md`)},
		{name: "sh /bin/rm", c: ocBash("/bin/rm memory-bank/MEMORY.md")},
		{name: "sh command rm", c: ocBash("command rm memory-bank/MEMORY.md")},
		{name: "sh nohup rm bg", c: ocBash("nohup rm memory-bank/MEMORY.md &")},
		{name: "sh brace expansion", c: ocBash("touch memory-bank/{a,b}.json")},
		{name: "sh ln -s", c: ocBash("ln -s ../src memory-bank/src")},
		{name: "sh hard link", c: ocBash("ln src/app.ts memory-bank/app.ts")},
		{name: "sh touch", c: ccBash("touch memory-bank/x.json")},
		{name: "sh mkdir", c: ocBash("mkdir -p memory-bank/data")},
		{name: "sh truncate", c: ocBash("truncate -s 0 memory-bank/MEMORY.md")},
		{name: "sh dd of=", c: ocBash("dd if=/dev/zero of=memory-bank/x.bin bs=1 count=1")},
		{name: "sh install", c: ocBash("install -m 644 src/app.ts memory-bank/app.ts")},
		{name: "sh chmod", c: ocBash("chmod 000 memory-bank/MEMORY.md")},
		{name: "sh sort -o", c: ocBash("sort -o memory-bank/x.md memory-bank/details/tech.md")},
		{name: "sh awk inplace", c: ocBash("awk -i inplace '{print}' memory-bank/MEMORY.md")},
		{name: "sh vim ex", c: ocBash("vim -c ':wq' memory-bank/x.json")},
		// --- shell: git ---
		{name: "git mv", c: ocBash("git mv memory-bank/details/tech.md memory-bank/details/tech.json")},
		{name: "git rm", c: ccBash("git rm -q memory-bank/MEMORY.md")},
		{name: "git checkout --", c: ocBash("git checkout -- memory-bank/MEMORY.md")},
		{name: "git checkout rev path", c: ocBash("git checkout HEAD~1 memory-bank/MEMORY.md")},
		{name: "git restore", c: ccBash("git restore memory-bank/MEMORY.md")},
		{name: "git -C bank rm", c: ocBash("git -C memory-bank rm MEMORY.md")},
		// --- shell: find ---
		{name: "find -delete", c: ocBash("find memory-bank -name '*.tmp' -delete")},
		{name: "find -exec rm", c: ccBash("find memory-bank -name '*.json' -exec rm {} \\;")},
		{name: "find root md -delete", c: ocBash("find . -name '*.md' -delete")},
		{name: "find root negated name -delete", c: ocBash("find . ! -name '*.pyc' -delete")},
		{name: "find root either name -delete", c: ocBash("find . -name '*.pyc' -o -name '*.md' -delete")},
		{name: "find root glob ext -delete", c: ocBash("find . -name '*.m?' -delete")},
		{name: "find root -exec sed -i", c: ccBash("find . -type f -exec sed -i s/a/b/ {} +")},
		{name: "git checkout dot", c: ocBash("git checkout -- .")},
		{name: "sed -i globstar", c: ocBash("sed -i s/a/b/ **/*.md")},
		{name: "find | xargs rm", c: ocBash("find memory-bank -name '*.json' | xargs rm")},
		{name: "ls | xargs rm -f", c: ocBash("ls memory-bank/*.json | xargs rm -f")},
		// --- shell: network and archives ---
		{name: "curl -o", c: ocBash("curl -sSL -o memory-bank/x.json https://example.invalid/x")},
		{name: "wget -O", c: ccBash("wget -q -O memory-bank/x.json https://example.invalid/x")},
		{name: "rsync", c: ocBash("rsync -a backup/ memory-bank/")},
		{name: "tar -x -C", c: ocBash("tar -xzf bank.tgz -C memory-bank")},
		{name: "tar x at root", c: ocBash("tar xzf backup.tgz")},
		{name: "unzip -d", c: ccBash("unzip -o bank.zip -d memory-bank")},
		{name: "cp -r backup over root", c: ocBash("cp -r backup/. .")},
		// --- shell: interpreters and wrappers ---
		{name: "python3 -c open w", c: ccBash(`python3 -c "open('memory-bank/x.json','w').write('{}')"`)},
		{name: "python pathlib", c: ocBash(`python3 -c "import pathlib; pathlib.Path('memory-bank/x.json').write_text('{}')"`)},
		{name: "python shutil.rmtree", c: ocBash(`python3 -c "import shutil; shutil.rmtree('memory-bank')"`)},
		{name: "python os.path.join", c: ocBash(`python3 -c "import os; open(os.path.join('memory-bank','x.json'),'w')"`)},
		{name: "python heredoc", c: ccBash("python3 - <<'PY'\nopen('memory-bank/x.json','w').write('{}')\nPY")},
		{name: "python piped code", c: ocBash(`echo "open('memory-bank/x.json','w')" | python3`)},
		{name: "node -e", c: ocBash(`node -e "require('fs').writeFileSync('memory-bank/x.json','{}')"`)},
		{name: "ruby -e", c: ocBash(`ruby -e "File.write('memory-bank/x.json','{}')"`)},
		{name: "perl -e", c: ocBash(`perl -e 'open(F,">memory-bank/x.json"); print F "x"'`)},
		{name: "bash -c", c: ccBash(`bash -c "echo x > memory-bank/x.json"`)},
		{name: "sh -c nested", c: ocBash(`sh -c 'bash -c "echo x >> memory-bank/MEMORY.md"'`)},
		{name: "eval", c: ocBash(`eval "echo x > memory-bank/x.json"`)},
		{name: "sudo tee", c: ocBash("echo x | sudo tee memory-bank/x.json")},
		{name: "env X=1 tee", c: ccBash("echo x | env X=1 tee memory-bank/x.json")},
		{name: "timeout rm", c: ocBash("timeout 5 rm memory-bank/MEMORY.md")},
		// --- shell: working directories ---
		{name: "subshell cd md", c: ocBash("(cd memory-bank && echo x > a.md)")},
		{name: "cd then json", c: ccBash("cd memory-bank; echo x > a.json")},
		{name: "cd abs then rm", c: ccBash("cd " + abs("memory-bank") + " && rm MEMORY.md")},
		{name: "pushd then rm", c: ocBash("pushd memory-bank && rm MEMORY.md")},
		{name: "workdir bank relative", c: ocBashIn("memory-bank", "echo x > a.json")},
		{name: "workdir bank abs", c: ocBashIn(abs("memory-bank/details"), "cp ../MEMORY.md ../x.json")},
		{name: "workdir bank rm", c: ocBashIn("memory-bank", "rm MEMORY.md")},
		{name: "workdir bank unknown target", c: ocBashIn("memory-bank", "echo x > $F")},
		{name: "sh through docs symlink", c: ocBash("echo x > docs/x.json"), prep: docsLink},
		{name: "sh cd docs symlink", c: ccBash("cd docs && echo x > y.json"), prep: docsLink},
		{name: "workdir docs symlink", c: ocBashIn("docs", "touch y.md"), prep: docsLink},
		{name: "sh uppercase on folding fs", c: ocBash("echo x > MEMORY-BANK/x.json"), prep: foldFS},
		{name: "sh home path to the bank", c: ocBash("echo x > ~/proj/memory-bank/x.json")},

		// --- legitimate: must pass ---
		{name: "ok md write keeping markers", c: ocWrite("memory-bank/MEMORY.md", focusChanged()), want: passes},
		{name: "ok cc md write", c: ccWrite("memory-bank/details/design/store.md", "# Store\n"), want: passes},
		{name: "ok cc Edit machine block", c: ccEdit("memory-bank/MEMORY.md", "- Remaining: tests", "- Remaining: docs"), want: passes},
		{name: "ok patch md add", c: ocPatch(codex("*** Add File: memory-bank/details/learnings/x.md\n+# x\n")), want: passes},
		{name: "ok patch delete stray json", c: ocPatch(codex("*** Delete File: memory-bank/old.json\n")), prep: withStray, want: passes},
		{name: "ok gitkeep", c: ocWrite("memory-bank/details/.gitkeep", ""), want: passes},
		{name: "ok uppercase dir on a case-sensitive fs", c: ocWrite("Memory-Bank/x.json", "{}"), want: passes},
		{name: "ok memory-bank-notes", c: ocWrite("memory-bank-notes/x.json", "{}"), want: passes},
		{name: "ok docs/memory-bank.json", c: ccWrite("docs/memory-bank.json", "{}"), want: passes},
		{name: "ok sh write to memory-bank-notes", c: ocBash("echo x > memory-bank-notes/x.json"), want: passes},
		{name: "ok rm pyc at root", c: ocBash("rm -f *.pyc"), want: passes},
		{name: "ok rm src glob", c: ocBash("rm -rf src/*"), want: passes},
		{name: "ok find pyc -delete at root", c: ocBash("find . -name '*.pyc' -delete"), want: passes},
		{name: "ok find -exec rm of logs", c: ccBash("find . -type f -name '*.log' -exec rm {} +"), want: passes},
		{name: "ok sed -i on root md", c: ocBash("sed -i s/a/b/ *.md"), want: passes},
		{name: "ok tar x into build", c: ocBash("tar xzf a.tgz -C build"), want: passes},
		{name: "ok git checkout src", c: ocBash("git checkout -- src/"), want: passes},
		{name: "ok redirect into a subdir variable", c: ocBash("echo x > build/$NAME"), want: passes},
		{name: "ok cat", c: ccBash("cat memory-bank/MEMORY.md"), want: readOnly},
		{name: "ok grep -r", c: ocBash("grep -rn zustand memory-bank"), want: readOnly},
		{name: "ok ls", c: ocBash("ls -la memory-bank"), want: readOnly},
		{name: "ok git diff", c: ccBash("git diff memory-bank"), want: readOnly},
		{name: "ok echo quoted redirect", c: ocBash("echo '> memory-bank/x'"), want: readOnly},
		{name: "ok cat to dev null", c: ocBash("cat memory-bank/MEMORY.md > /dev/null"), want: readOnly},
		{name: "ok find read", c: ocBash("find memory-bank -name '*.md'"), want: readOnly},
		{name: "ok python reads the bank", c: ccBash(`python3 -c "print(open('memory-bank/MEMORY.md').read())"`), want: readOnly},
		{name: "ok workdir bank read", c: ocBashIn("memory-bank", "cat MEMORY.md"), want: readOnly},
		{name: "ok read tool", c: oc("read", map[string]any{"filePath": "memory-bank/MEMORY.md"}), want: readOnly},
	}
}

func TestRedTeamBankGuard(t *testing.T) {
	blocked, passed := 0, 0
	for _, tc := range redTeamCases() {
		for _, mode := range []Mode{ModeOff, ModeWarn, ModeBlock} {
			t.Run(tc.name+"/"+string(mode), func(t *testing.T) {
				fx := newFacts(bankFiles())
				if tc.prep != nil {
					tc.prep(fx)
				}
				s := newSession(t, policyWith(mode, mode, mode), fx, tc.c.host)
				cwd := tc.c.cwd
				if cwd == "" {
					cwd = testRoot
				}
				d := s.e.Handle(s.st, Event{Kind: EvToolBefore, Host: tc.c.host, Session: "s1", Message: "m1",
					Tool: tc.c.tool, Args: tc.c.args, Cwd: cwd, Now: 5000}, fx)
				if strings.Contains(d.Message, testSecret) {
					t.Fatal("message leaks the secret")
				}
				switch tc.want {
				case bankBlock:
					if d.Verdict != Block || d.Gate != GateBank {
						t.Fatalf("%s %v: decision = %s/%s (%q), want block/bank", tc.c.tool, tc.c.args, d.Verdict, d.Gate, d.Message)
					}
					wantMsg(t, d, append([]string{"[mbguard bank] blocked", "Next:"}, tc.inMsg...)...)
					blocked++
				case passes:
					if d.Gate == GateBank {
						t.Fatalf("legitimate call met the bank guard: %q", d.Message)
					}
					if mode == ModeOff && d.Verdict != Allow {
						t.Fatalf("with every gate off: %s/%s (%q)", d.Verdict, d.Gate, d.Message)
					}
					passed++
				case readOnly:
					if d.Verdict != Allow || d.Risk != RiskNone {
						t.Fatalf("read-only call: %s/%s risk %s (%q)", d.Verdict, d.Gate, d.Risk, d.Message)
					}
					passed++
				}
			})
		}
	}
	t.Logf("%d blocked and %d passed decisions over %d attempts", blocked, passed, len(redTeamCases()))
}

// TestRedTeamGates tries high-risk writes through each tool shape in block mode: the read gate
// holds until memory-bank/details/patterns.md is read in this message, and after a compaction
// the recovery gate holds until the anchors are read again.
func TestRedTeamGates(t *testing.T) {
	high := []call{
		ocWrite("package.json", "{}"),
		ccWrite("go.mod", "module x\n"),
		ocEdit(".github/workflows/ci.yml", "a", "b"),
		cc("MultiEdit", map[string]any{"file_path": abs("src/auth/login.ts"), "edits": []any{map[string]any{"old_string": "a", "new_string": "b"}}}),
		ocPatch(codex("*** Add File: infra/main.tf\n+x\n")),
		ocBash("cp /tmp/lock yarn.lock"),
		ccBash("rm -rf infra"),
		ocBatch(ocWrite("src/a.ts", "x"), ocWrite("Dockerfile", "FROM x")),
	}
	for _, c := range high {
		name := c.tool + " " + strings.Join(wantPaths(c), ",")
		t.Run(name, func(t *testing.T) {
			s := newSession(t, policyWith(ModeBlock, ModeBlock, ModeOff), newFacts(bankFiles()), c.host)
			d := s.before(c.tool, c.args)
			want(t, d, Block, GateRead)
			wantMsg(t, d, "Next:", "memory-bank/details/patterns.md")
			s.read("memory-bank/details/tech.md") // not the one asked for
			want(t, s.before(c.tool, c.args), Block, GateRead)
			s.read("memory-bank/details/patterns.md")
			want(t, s.before(c.tool, c.args), Allow, GateNone)
			s.compact()
			d = s.before(c.tool, c.args)
			want(t, d, Block, GateRecovery)
			wantMsg(t, d, "Next: read each of these", "memory-bank/MEMORY.md")
			s.read("memory-bank/MEMORY.md")
			s.read("memory-bank/details/patterns.md")
			want(t, s.before(c.tool, c.args), Allow, GateNone)
			s.message()
			want(t, s.before(c.tool, c.args), Block, GateRead)
		})
	}
}

// wantPaths names a call's target for a subtest name.
func wantPaths(c call) []string {
	for _, k := range []string{"filePath", "file_path", "command"} {
		if p, ok := c.args[k].(string); ok {
			return []string{p}
		}
	}
	return []string{"…"}
}
