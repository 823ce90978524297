package shell

import (
	"reflect"
	"strings"
	"testing"
)

// tc is one classification case. Writes and reads are paths, with "?"
// appended when the access is only a hint (Access.Unknown). flags holds W
// (Write), U (Unknown), I (Interpreter) and E (ParseError).
type tc struct {
	name   string
	cmd    string
	writes []string
	reads  []string
	flags  string
}

func w(p ...string) []string { return p }

var cases = []tc{
	// Redirects.
	{"redirect out", "echo hi > memory-bank/x.md", w("/repo/memory-bank/x.md"), nil, "W"},
	{"redirect append", "echo hi >> memory-bank/x.md", w("/repo/memory-bank/x.md"), nil, "W"},
	{"redirect all", "make &> build.log", w("/repo/build.log"), nil, "W"},
	{"redirect append all", "make &>> build.log", w("/repo/build.log"), nil, "W"},
	{"redirect clobber", "echo x >| memory-bank/a", w("/repo/memory-bank/a"), nil, "W"},
	{"redirect read write", "exec 3<> memory-bank/a", w("/repo/memory-bank/a"), nil, "W"},
	{"redirect fd number", "cmd 2> err.txt", w("/repo/err.txt"), nil, "W"},
	{"redirect csh style", "cmd >& out.txt", w("/repo/out.txt"), nil, "W"},
	{"redirect no space", "echo x >memory-bank/a.md", w("/repo/memory-bank/a.md"), nil, "W"},
	{"quoted gt is text", "echo '>' memory-bank/x", nil, nil, ""},
	{"double quoted gt is text", `echo "a > memory-bank/x"`, nil, nil, ""},
	{"escaped gt is text", `echo \> memory-bank/x`, nil, nil, ""},
	{"stderr to devnull", "echo hi 2>/dev/null", nil, nil, ""},
	{"stdout to devnull", "ls > /dev/null 2>&1", nil, nil, ""},
	{"dup to stderr", "echo oops >&2", nil, nil, ""},
	{"close fd", "cmd 2>&-", nil, nil, ""},
	{"dev stdout", "echo x > /dev/stdout", nil, nil, ""},
	{"dev tty", "echo x > /dev/tty", nil, nil, ""},
	{"input redirect is read", "wc -l < memory-bank/MEMORY.md", nil, w("/repo/memory-bank/MEMORY.md"), ""},
	{"variable target", "echo x > $F", nil, nil, "WU"},
	{"variable tail keeps dir", "echo x > memory-bank/$NAME", w("/repo/memory-bank/?"), nil, "WU"},
	{"quoted variable tail", `echo x > "memory-bank/${NAME}.md"`, w("/repo/memory-bank/?"), nil, "WU"},
	{"command substitution target", "echo x > $(mktemp)", nil, nil, "WU"},
	// a file opened for reading is read, whatever else the code writes
	{"python read open beside write", `python3 -c "open('out/a.txt','w').write(open('memory-bank/MEMORY.md').read())"`, w("/repo/out/a.txt"), w("/repo/memory-bank/MEMORY.md"), "WI"},
	{"python read open with encoding", `python3 -c "open('out/a.txt','w').write(open('memory-bank/MEMORY.md', encoding='utf-8').read())"`, w("/repo/out/a.txt"), w("/repo/memory-bank/MEMORY.md"), "WI"},
	{"python open mode variable", `python3 -c "open('out/a.txt','w').write(open('memory-bank/MEMORY.md', m).read())"`, w("/repo/out/a.txt", "/repo/memory-bank/MEMORY.md"), nil, "WI"},
	{"python append open", `python3 -c "x=open('memory-bank/MEMORY.md').read(); open('memory-bank/MEMORY.md', 'a').write(x)"`, w("/repo/memory-bank/MEMORY.md"), w("/repo/memory-bank/MEMORY.md"), "WI"},
	{"python os.open", `python3 -c "import os; os.open('memory-bank/a.md', os.O_WRONLY)"`, w("/repo/memory-bank/a.md"), nil, "WI"},
	{"python concat without spaces", `python3 -c "open('mem'+'ory-bank/y.txt','w').write('py')"`, w("/repo/ory-bank/y.txt", "/repo/memory-bank/?"), nil, "WIU"},
	// a hard link's source is changed too (its link count; writes through the new name)
	{"hard link out of the bank", "ln memory-bank/MEMORY.md notes.md", w("/repo/memory-bank/MEMORY.md", "/repo/notes.md"), nil, "W"},
	{"cp -l out of the bank", "cp -l memory-bank/MEMORY.md n.md", w("/repo/memory-bank/MEMORY.md", "/repo/n.md"), nil, "W"},
	{"symlink to the bank is no write there", "ln -s memory-bank/MEMORY.md m.md", w("/repo/m.md"), nil, "W"},
	// a parameter that only expands to digits leaves the path as known as a literal would
	{"pid in target", "cp memory-bank/MEMORY.md /tmp/bak/m-$$.md", w("/tmp/bak/m-0.md"), nil, "W"},
	{"random in target", "echo x > /tmp/out-${RANDOM}.log", w("/tmp/out-0.log"), nil, "W"},
	{"length in target", "echo x > out/${#name}.txt", w("/repo/out/0.txt"), nil, "W"},
	{"non-digit param stays unknown", "echo x > /tmp/out-${RANDOM:-$D}.log", w("/tmp/out-?"), nil, "WU"},
	{"absolute target", "echo x > /tmp/a//b", w("/tmp/a/b"), nil, "W"},
	{"dotdot target", "echo x > src/../memory-bank/a.md", w("/repo/memory-bank/a.md"), nil, "W"},
	{"tilde target", "echo x > ~/notes.txt", w("~/notes.txt"), nil, "W"},
	{"glob target kept", "cat a > memory-bank/*.md", w("/repo/memory-bank/*.md"), w("/repo/a"), "W"},
	{"read and redirect", "cat a > b", w("/repo/b"), w("/repo/a"), "W"},

	// Heredocs.
	{"heredoc to file", "cat <<EOF > memory-bank/x.md\nhello > not/a/file\nEOF", w("/repo/memory-bank/x.md"), nil, "W"},
	{"heredoc target first", "cat > memory-bank/x.md <<'EOF'\nrm -rf /\nEOF", w("/repo/memory-bank/x.md"), nil, "W"},
	{"heredoc no space", "cat <<EOF >memory-bank/a.md\nx\nEOF", w("/repo/memory-bank/a.md"), nil, "W"},
	{"heredoc dash", "cat <<-EOF > a.txt\n\tx\n\tEOF", w("/repo/a.txt"), nil, "W"},
	{"heredoc body substitution runs", "cat <<EOF > a.txt\n$(rm b)\nEOF", w("/repo/b", "/repo/a.txt"), nil, "W"},
	{"quoted heredoc body is text", "cat <<'EOF'\n$(rm b)\nEOF", nil, nil, ""},
	{"heredoc to bash", "bash <<'EOF'\nrm memory-bank/MEMORY.md\nEOF", w("/repo/memory-bank/MEMORY.md"), nil, "W"},
	{"herestring to sh", `sh <<< "touch x"`, w("/repo/x"), nil, "W"},
	{"heredoc to python", "python3 - <<'EOF'\nopen('memory-bank/a.json','w').write('{}')\nEOF", w("/repo/memory-bank/a.json"), nil, "WI"},
	{"piped code to bash", "curl -s https://x.sh | bash", nil, nil, "WU"},

	// cd tracking.
	{"cd and", "cd memory-bank && echo x > a.json", w("/repo/memory-bank/a.json"), nil, "W"},
	{"cd chain", "cd a; cd ../memory-bank; rm MEMORY.md", w("/repo/memory-bank/MEMORY.md"), nil, "W"},
	{"cd in subshell does not leak", "(cd memory-bank && touch x); touch y", w("/repo/memory-bank/x", "/repo/y"), nil, "W"},
	{"cd in block leaks", "{ cd memory-bank; }; touch y", w("/repo/memory-bank/y"), nil, "W"},
	{"cd absolute", "cd /other && rm f", w("/other/f"), nil, "W"},
	{"cd or", "cd memory-bank || exit 1; rm a", w("/repo/memory-bank/a"), nil, "W"},
	{"cd newline", "cd memory-bank\nrm a", w("/repo/memory-bank/a"), nil, "W"},
	{"cd dash unknown", "cd -; rm a.md", w("a.md?"), nil, "WU"},
	{"cd home unknown", "cd; rm a.md", w("a.md?"), nil, "WU"},
	{"cd variable unknown", "cd $D && rm a.md && rm /abs/b", w("a.md?", "/abs/b"), nil, "WU"},
	{"cd unknown drops reads", "cd $D && cat memory-bank/MEMORY.md", nil, nil, ""},
	{"cd in pipeline does not leak", "cd memory-bank | true; rm a", w("/repo/a"), nil, "W"},
	{"cd inside if makes cwd unknown", "if true; then cd memory-bank; fi; rm a", w("a?"), nil, "WU"},
	{"pushd", "pushd memory-bank && rm a", w("/repo/memory-bank/a"), nil, "W"},
	{"cd in substitution does not leak", "x=$(cd memory-bank && pwd); rm a", w("/repo/a"), nil, "W"},

	// Wrappers.
	{"bash -c", `bash -c "echo x > memory-bank/a.txt"`, w("/repo/memory-bank/a.txt"), nil, "W"},
	{"bash -lc", `bash -lc 'rm memory-bank/a'`, w("/repo/memory-bank/a"), nil, "W"},
	{"sh -c nested", `sh -c "bash -c 'touch memory-bank/a'"`, w("/repo/memory-bank/a"), nil, "W"},
	{"sh -c inherits cwd", `cd memory-bank && sh -c 'touch a'`, w("/repo/memory-bank/a"), nil, "W"},
	{"bash -c variable", `bash -c "$CMD"`, nil, nil, "WU"},
	{"bash script is not a write", "bash scripts/build.sh", nil, nil, ""},
	{"depth limit", `sh -c "sh -c \"sh -c 'sh -c \\\"sh -c ls\\\"'\""`, nil, nil, "WU"},
	{"eval", `eval 'rm memory-bank/MEMORY.md'`, w("/repo/memory-bank/MEMORY.md"), nil, "W"},
	{"eval joined args", `eval rm memory-bank/MEMORY.md`, w("/repo/memory-bank/MEMORY.md"), nil, "W"},
	{"sudo tee", "echo x | sudo tee memory-bank/a.md", w("/repo/memory-bank/a.md"), nil, "W"},
	{"sudo options", "sudo -u root -E rm -rf memory-bank", w("/repo/memory-bank"), nil, "W"},
	{"env prefix", "env FOO=1 BAR=2 rm a", w("/repo/a"), nil, "W"},
	{"env chdir", "env -C memory-bank rm a", w("/repo/memory-bank/a"), nil, "W"},
	{"assignment prefix", "FOO=1 rm a", w("/repo/a"), nil, "W"},
	{"nice nohup time", "nice -n 5 nohup time rm a", w("/repo/a"), nil, "W"},
	{"timeout", "timeout -s KILL 10 rm a", w("/repo/a"), nil, "W"},
	{"stdbuf", "stdbuf -oL tee out.log", w("/repo/out.log"), nil, "W"},
	{"command builtin exec", "command rm a; builtin cd memory-bank; exec rm b", w("/repo/a", "/repo/memory-bank/b"), nil, "W"},
	{"command -v is lookup", "command -v rm", nil, nil, ""},
	{"full path command", "/bin/rm a", w("/repo/a"), nil, "W"},
	{"escaped command", `\rm a`, w("/repo/a"), nil, "W"},
	{"xargs rm", "ls | xargs rm", nil, nil, "WU"},
	{"xargs -I mv", "ls | xargs -I{} mv {} memory-bank/", w("/repo/{}", "/repo/memory-bank/{}"), nil, "WU"},
	{"xargs reader", "ls | xargs -0 cat", nil, nil, ""},
	{"unknown command name", "$EDITOR a.md", nil, nil, "WU"},

	// Substitutions and compound commands.
	{"command substitution", "echo $(echo x > f)", w("/repo/f"), nil, "W"},
	{"backticks", "echo `rm a`", w("/repo/a"), nil, "W"},
	{"process substitution", "diff <(cat a) <(touch b)", w("/repo/b"), w("/repo/a"), "W"},
	{"pipeline", "cat memory-bank/details/patterns.md | head", nil, w("/repo/memory-bank/details/patterns.md"), ""},
	{"background", "rm a & rm b", w("/repo/a", "/repo/b"), nil, "W"},
	{"function body", "f() { rm memory-bank/a; }; f", w("/repo/memory-bank/a"), nil, "W"},
	{"for loop", "for f in *.md; do cp $f memory-bank/; done", w("/repo/memory-bank/*.md"), nil, "W"},
	{"for loop over a run-time list", "for f in $(ls); do cp $f memory-bank/; done", w("/repo/memory-bank/?"), nil, "W"},
	{"while loop", "while read l; do echo $l >> out; done < in.txt", w("/repo/out"), w("/repo/in.txt"), "W"},
	{"case", "case $x in a) rm a;; *) touch b;; esac", w("/repo/a", "/repo/b"), nil, "W"},
	{"if condition", "if rm a; then :; fi", w("/repo/a"), nil, "W"},
	{"test clause substitution", "[[ -n $(touch t) ]]", w("/repo/t"), nil, "W"},
	{"declaration substitution", "local x=$(rm a)", w("/repo/a"), nil, "W"},
	{"negation", "! rm a", w("/repo/a"), nil, "W"},
	{"continuation", "rm \\\n  memory-bank/a.md", w("/repo/memory-bank/a.md"), nil, "W"},
	{"comment only", "# rm a", nil, nil, ""},
	{"empty", "", nil, nil, ""},

	// File utilities.
	{"tee", "echo x | tee a b", w("/repo/a", "/repo/b"), nil, "W"},
	{"tee append", "echo x | tee -a memory-bank/progress.md", w("/repo/memory-bank/progress.md"), nil, "W"},
	{"dd of", "dd if=/dev/zero of=memory-bank/x bs=1 count=1", w("/repo/memory-bank/x"), nil, "W"},
	{"truncate", "truncate -s 0 memory-bank/a.md", w("/repo/memory-bank/a.md"), nil, "W"},
	{"install", "install -m 644 src.txt memory-bank/a.txt", w("/repo/memory-bank/a.txt"), nil, "W"},
	{"install -d", "install -d memory-bank/x", w("/repo/memory-bank/x"), nil, "W"},
	{"ln -s", "ln -s ../target memory-bank/link", w("/repo/memory-bank/link"), nil, "W"},
	{"ln one arg", "ln -s /etc/passwd", w("/repo/passwd"), nil, "W"},
	{"cp", "cp a.md memory-bank/b.md", w("/repo/memory-bank/b.md"), nil, "W"},
	{"cp into dir slash", "cp a.md memory-bank/", w("/repo/memory-bank/a.md"), nil, "W"},
	{"cp many into dir", "cp -r a b memory-bank", w("/repo/memory-bank/a", "/repo/memory-bank/b"), nil, "W"},
	{"cp -t", "cp -t memory-bank a.md", w("/repo/memory-bank/a.md"), nil, "W"},
	{"mv both", "mv memory-bank/a.md docs/a.md", w("/repo/memory-bank/a.md", "/repo/docs/a.md"), nil, "W"},
	{"mv -t", "mv -t docs memory-bank/a.md", w("/repo/memory-bank/a.md", "/repo/docs/a.md"), nil, "W"},
	{"rm -rf", "rm -rf memory-bank", w("/repo/memory-bank"), nil, "W"},
	{"rm after dashdash", "rm -- -weird", w("/repo/-weird"), nil, "W"},
	{"mv brace expansion", "mv memory-bank/{a,b}.md", w("/repo/memory-bank/a.md", "/repo/memory-bank/b.md"), nil, "W"},
	{"brace nested", "touch x/{a,b{1,2}}.md", w("/repo/x/a.md", "/repo/x/b1.md", "/repo/x/b2.md"), nil, "W"},
	{"quoted brace is literal", "touch 'x/{a,b}'", w("/repo/x/{a,b}"), nil, "W"},
	{"mkdir -p", "mkdir -p memory-bank/details", w("/repo/memory-bank/details"), nil, "W"},
	{"touch", "touch -d yesterday memory-bank/a.md", w("/repo/memory-bank/a.md"), nil, "W"},
	{"rmdir shred unlink", "rmdir d; shred -n 3 f; unlink g", w("/repo/d", "/repo/f", "/repo/g"), nil, "W"},
	{"chmod", "chmod -R 644 memory-bank", w("/repo/memory-bank"), nil, "W"},
	{"chmod symbolic dash mode", "chmod -w memory-bank/a.md", w("/repo/memory-bank/a.md"), nil, "W"},
	{"chown", "chown user:group memory-bank/a.md", w("/repo/memory-bank/a.md"), nil, "W"},
	{"rsync", "rsync -av --exclude .git src/ memory-bank/", w("/repo/memory-bank/?"), nil, "W"},
	{"scp remote dest", "scp memory-bank/a.md host:/tmp/", nil, nil, "W"},
	{"scp local dest", "scp host:/tmp/a.md memory-bank/a.md", w("/repo/memory-bank/a.md"), nil, "W"},
	{"patch with stdin", "patch -p1 < fix.patch", nil, w("/repo/fix.patch"), "WU"},
	{"patch file", "patch memory-bank/a.md fix.diff", w("/repo/memory-bank/a.md"), nil, "W"},
	{"tar extract -C", "tar -xzf a.tgz -C memory-bank", w("/repo/memory-bank/?"), w("/repo/a.tgz"), "W"},
	{"tar old style", "tar xf a.tar", w("/repo/?"), w("/repo/a.tar"), "W"},
	{"tar create", "tar czf out.tgz memory-bank", w("/repo/out.tgz"), nil, "W"},
	{"tar list", "tar tf a.tar", nil, nil, ""},
	{"unzip -d", "unzip -o a.zip -d memory-bank", w("/repo/memory-bank/?"), w("/repo/a.zip"), "W"},
	{"unzip list", "unzip -l a.zip", nil, nil, ""},
	{"gzip", "gzip memory-bank/a.md", w("/repo/memory-bank/a.md"), nil, "W"},
	{"gzip stdout", "gzip -c a.md", nil, nil, ""},
	{"gunzip filter", "gzip -c memory-bank/a.md | gunzip", nil, nil, ""},
	{"zstd -d stdin", "zstd -d - < a.zst", nil, w("/repo/a.zst"), ""},
	{"tar to stdout and back out", "tar cf - memory-bank/a.md | tar xf - -O", nil, nil, ""},
	{"tar x --to-stdout", "tar --to-stdout -xf a.tar", nil, w("/repo/a.tar"), ""},
	{"tar c without -f", "tar c memory-bank", nil, nil, "W"},
	{"tar cf - into the bank", "tar cf - src | tar xf - -C memory-bank", w("/repo/memory-bank/?"), nil, "W"},
	{"basenc read", "basenc --base64url memory-bank/MEMORY.md", nil, w("/repo/memory-bank/MEMORY.md"), ""},
	{"base32 read", "base32 -w 0 memory-bank/MEMORY.md", nil, w("/repo/memory-bank/MEMORY.md"), ""},
	{"basenc redirect", "basenc --base32 a.md > memory-bank/b.md", w("/repo/memory-bank/b.md"), w("/repo/a.md"), "W"},
	{"sort -o", "sort -o memory-bank/a.md memory-bank/a.md", w("/repo/memory-bank/a.md"), w("/repo/memory-bank/a.md"), "W"},
	{"vim", "vim +10 memory-bank/a.md", w("/repo/memory-bank/a.md"), nil, "W"},
	{"mktemp", "mktemp memory-bank/tmp.XXXX", w("/repo/memory-bank/tmp.XXXX"), nil, "W"},
	{"apply_patch heredoc", "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: memory-bank/a.md\n@@\n-x\n+y\n*** End Patch\nEOF", w("/repo/memory-bank/a.md"), nil, "W"},

	// sed, perl, awk.
	{"sed -i", "sed -i 's/a/b/' memory-bank/MEMORY.md", w("/repo/memory-bank/MEMORY.md"), nil, "W"},
	{"sed -i.bak", "sed -i.bak -e 's/a/b/' a.md", w("/repo/a.md"), nil, "W"},
	{"sed in-place long", "sed --in-place=.orig 's/a/b/' a.md", w("/repo/a.md"), nil, "W"},
	{"sed bsd empty suffix", "sed -i '' 's/a/b/' a.md", w("/repo/a.md"), nil, "W"},
	{"sed -Ei cluster", "sed -Ei 's/a/b/' a.md", w("/repo/a.md"), nil, "W"},
	{"sed -n read", "sed -n '1,5p' memory-bank/MEMORY.md", nil, w("/repo/memory-bank/MEMORY.md"), ""},
	{"sed stdout read", "sed 's/x/y/' memory-bank/a.md", nil, w("/repo/memory-bank/a.md"), ""},
	{"perl -pi -e", "perl -pi -e 's/a/b/' memory-bank/a.md", w("/repo/memory-bank/a.md"), nil, "WI"},
	{"perl -i.bak", "perl -i.bak -pe 's/a/b/' a.md b.md", w("/repo/a.md", "/repo/b.md"), nil, "WI"},
	{"ruby -i", "ruby -i -pe 'sub(/a/,\"b\")' a.md", w("/repo/a.md"), nil, "WI"},
	{"awk read", "awk '{print $1}' memory-bank/a.md", nil, w("/repo/memory-bank/a.md"), ""},
	{"look WORD FILE", "look token memory-bank/a.md", nil, w("/repo/memory-bank/a.md"), ""},
	{"xargs -a FILE", "xargs -a memory-bank/a.md echo", nil, w("/repo/memory-bank/a.md"), ""},
	{"awk -f", "awk -f memory-bank/a.awk in.txt", nil, w("/repo/memory-bank/a.awk", "/repo/in.txt"), ""},
	{"curl file://", "curl file:///repo/memory-bank/a.md", nil, w("/repo/memory-bank/a.md"), ""},
	{"awk -F read", "awk -F: '{print $1}' /etc/passwd", nil, w("/etc/passwd"), ""},
	{"awk print to file", `awk '{print > "memory-bank/out.md"}' in.txt`, w("/repo/memory-bank/out.md"), w("/repo/in.txt"), "W"},
	{"awk comparison", `awk '$1 > 5' data.txt`, nil, w("/repo/data.txt"), ""},
	{"gawk inplace", "gawk -i inplace '{gsub(/a/,\"b\")}1' a.md", w("/repo/a.md"), nil, "W"},
	{"awk system", `awk '{system("rm " $1)}' list`, nil, w("/repo/list"), "WU"},

	// Interpreters.
	{"python -c write", `python3 -c "open('memory-bank/x.json','w').write('1')"`, w("/repo/memory-bank/x.json"), nil, "WI"},
	{"python -c read", `python3 -c "print(open('memory-bank/MEMORY.md').read())"`, nil, w("/repo/memory-bank/MEMORY.md"), "I"},
	{"python -c pathlib", `python -c "from pathlib import Path; Path('memory-bank/a.md').write_text('x')"`, w("/repo/memory-bank/a.md"), nil, "WIU"},
	{"python -c os.remove", `python3 -c "import os; os.remove('MEMORY.md')"`, w("/repo/MEMORY.md"), nil, "WI"},
	{"python -c shutil join", `python3 -c "import shutil, os; shutil.rmtree(os.path.join('memory-bank', 'details'))"`, w("/repo/memory-bank"), nil, "WIU"},
	{"python -c no path", `python3 -c "import os; os.remove(x)"`, nil, nil, "WIU"},
	{"python -c no write", `python3 -c "print(1+1)"`, nil, nil, "I"},
	{"python script handed a bank path", "python3 scripts/gen.py memory-bank/a.md", w("/repo/memory-bank/a.md"), nil, "W"},
	{"python script not a write", "python3 scripts/gen.py out/a.md", nil, nil, ""},
	{"python versioned", `python3.12 -c "import os; os.unlink('a.txt')"`, w("/repo/a.txt"), nil, "WI"},
	{"node -e", `node -e "require('fs').writeFileSync('memory-bank/a.md','x')"`, w("/repo/memory-bank/a.md"), nil, "WI"},
	{"node --eval", `node --eval "fs.unlinkSync('a.json')"`, w("/repo/a.json"), nil, "WI"},
	{"node -pe", `node -pe "fs.rmSync('memory-bank', {recursive: true})"`, w("/repo/memory-bank"), nil, "WI"},
	{"node -e read", `node -e "console.log(require('fs').readFileSync('package.json','utf8'))"`, nil, w("/repo/package.json"), "I"},
	{"ruby -e", `ruby -e "File.write('memory-bank/a.md', 'x')"`, w("/repo/memory-bank/a.md"), nil, "WI"},
	{"perl -e", `perl -e 'unlink "memory-bank/a.md"'`, w("/repo/memory-bank/a.md"), nil, "WI"},
	{"perl open", `perl -e 'open(my $f, ">", "memory-bank/a.md")'`, w("/repo/memory-bank/a.md"), nil, "WIU"},
	{"perl -ne FILE", `perl -ne print memory-bank/a.md`, nil, w("/repo/memory-bank/a.md"), "I"},
	{"python -c CODE FILE", `python3 -c 'import sys; print(open(sys.argv[1]).read())' memory-bank/a.md`, nil, w("/repo/memory-bank/a.md"), "I"},
	{"php -r", `php -r "file_put_contents('memory-bank/a.md', 'x');"`, w("/repo/memory-bank/a.md"), nil, "WI"},
	{"deno eval", `deno eval "Deno.writeTextFileSync('a.md', 'x')"`, w("/repo/a.md"), nil, "WI"},
	{"bun -e", `bun -e "Bun.write('a.md', 'x')"`, w("/repo/a.md"), nil, "WI"},
	{"osascript", `osascript -e 'do shell script "rm x"'`, nil, nil, "WIU"},
	{"interpreter variable code", `python3 -c "$CODE"`, nil, nil, "WIU"},
	{"interpreter in cd", `cd memory-bank && python3 -c "open('a.json','w')"`, w("/repo/memory-bank/a.json"), nil, "WI"},
	{"piped python", "echo 'print(1)' | python3", nil, nil, "WU"},

	// git.
	{"git mv", "git mv a.md b.md", w("/repo/a.md", "/repo/b.md"), nil, "W"},
	{"git -C mv", "git -C memory-bank mv a.md b.md", w("/repo/memory-bank/a.md", "/repo/memory-bank/b.md"), nil, "W"},
	{"git -C stacked", "git -C a -C ../memory-bank rm x.md", w("/repo/memory-bank/x.md"), nil, "W"},
	{"git rm", "git rm -r --cached memory-bank/old", w("/repo/memory-bank/old"), nil, "W"},
	{"git checkout paths", "git checkout -- memory-bank/MEMORY.md", w("/repo/memory-bank/MEMORY.md"), nil, "W"},
	{"git checkout ref paths", "git checkout HEAD~1 -- memory-bank/a.md", w("/repo/memory-bank/a.md"), nil, "W"},
	{"git checkout branch", "git checkout main", nil, nil, "WU"},
	{"git checkout dot", "git checkout .", w("/repo"), nil, "WU"},
	{"git restore", "git restore memory-bank/a.md", w("/repo/memory-bank/a.md"), nil, "W"},
	{"git restore staged only", "git restore --staged memory-bank/a.md", nil, nil, ""},
	{"git apply", "git apply x.patch", nil, nil, "WU"},
	{"git apply check", "git apply --check x.patch", nil, nil, ""},
	{"git am", "git am < x.mbox", nil, w("/repo/x.mbox"), "WU"},
	{"git stash pop", "git stash pop", w("/repo/?"), nil, "W"},
	{"git stash list", "git stash list", nil, nil, ""},
	{"git reset hard", "git reset --hard HEAD", w("/repo/?"), nil, "W"},
	{"git reset soft", "git reset HEAD~1", nil, nil, ""},
	{"git clean", "git clean -fd", w("/repo/?"), nil, "W"},
	{"git clean dry", "git clean -n", nil, nil, ""},
	{"git log path", "git log -p -- memory-bank/MEMORY.md", nil, w("/repo/memory-bank/MEMORY.md"), ""},
	{"git diff path-like", "git diff main memory-bank/a.md", nil, w("/repo/memory-bank/a.md"), ""},
	{"git show rev path skipped", "git show HEAD:memory-bank/a.md", nil, nil, ""},
	{"git status", "git status --short", nil, nil, ""},
	{"git blame -C", "git -C memory-bank blame MEMORY.md", nil, w("/repo/memory-bank/MEMORY.md"), ""},
	{"git grep", "git grep -n TODO -- src", nil, w("/repo/src"), ""},
	{"git commit", "git add -A && git commit -m 'x > y'", nil, nil, ""},
	{"git diff output", "git diff --output=memory-bank/d.patch", w("/repo/memory-bank/d.patch"), nil, "W"},
	{"git alias unknown", "git frobnicate", nil, nil, "WU"},
	{"git clone", "git clone https://x/y/repo.git", w("/repo/repo/?"), nil, "W"},

	// find.
	{"find -delete", "find memory-bank -name '*.tmp' -delete", w("/repo/memory-bank/?"), nil, "W"},
	{"find -exec rm", `find . memory-bank -name '*.md' -exec rm {} \;`, w("/repo/?", "/repo/memory-bank/?"), nil, "W"},
	{"find -exec grep is read", "find memory-bank -name '*.md' -exec grep -l foo {} +", nil, w("/repo/memory-bank"), ""},
	{"find read", "find memory-bank -type f", nil, w("/repo/memory-bank"), ""},
	{"find default root", "find -name x -delete", w("/repo/?"), nil, "W"},
	{"find -fprint", "find src -fprint memory-bank/list.txt", w("/repo/memory-bank/list.txt"), w("/repo/src"), "W"},
	{"find -exec sh -c", `find . -exec sh -c 'echo x > memory-bank/a' \;`, w("/repo/memory-bank/a", "/repo/?"), nil, "W"},

	// Downloads.
	{"curl -o", "curl -sSL -o memory-bank/x https://example.com/a", w("/repo/memory-bank/x"), nil, "W"},
	{"curl cluster o", "curl -sSLo memory-bank/x https://example.com/a", w("/repo/memory-bank/x"), nil, "W"},
	{"curl --output=", "curl --output=memory-bank/x https://e.com", w("/repo/memory-bank/x"), nil, "W"},
	{"curl -O", "curl -O https://e.com/path/file.md?x=1", w("/repo/file.md"), nil, "W"},
	{"curl stdout", "curl -s https://e.com", nil, nil, ""},
	{"wget -O", "wget -O memory-bank/a.md https://e.com/x", w("/repo/memory-bank/a.md"), nil, "W"},
	{"wget output-document", "wget --output-document=memory-bank/a.md https://e.com/x", w("/repo/memory-bank/a.md"), nil, "W"},
	{"wget -qO-", "wget -qO- https://e.com/x", nil, nil, ""},
	{"wget default name", "wget -P memory-bank https://e.com/x/y.md", w("/repo/memory-bank/y.md"), nil, "W"},

	// Reads.
	{"cat", "cat memory-bank/details/patterns.md", nil, w("/repo/memory-bank/details/patterns.md"), ""},
	{"head -n", "head -n 20 memory-bank/MEMORY.md", nil, w("/repo/memory-bank/MEMORY.md"), ""},
	{"tail", "tail -50 log.txt", nil, w("/repo/log.txt"), ""},
	{"grep pattern skipped", "grep -rn 'TODO' memory-bank/", nil, w("/repo/memory-bank"), ""},
	{"grep -e", "grep -e foo -e bar a.md b.md", nil, w("/repo/a.md", "/repo/b.md"), ""},
	{"rg with glob", "rg -g '*.md' pattern memory-bank", nil, w("/repo/memory-bank"), ""},
	{"ls", "ls -la memory-bank/details", nil, w("/repo/memory-bank/details"), ""},
	{"wc", "wc -l memory-bank/*.md", nil, w("/repo/memory-bank/*.md"), ""},
	{"bat", "bat --style=plain -l md memory-bank/a.md", nil, w("/repo/memory-bank/a.md"), ""},
	{"stat file", "stat -c %s a.md && file b.md", nil, w("/repo/a.md", "/repo/b.md"), ""},
	{"jq", "jq '.name' package.json", nil, w("/repo/package.json"), ""},
	{"reads relative without cwd", "cat ./memory-bank//MEMORY.md", nil, w("/repo/memory-bank/MEMORY.md"), ""},
	{"read variable dropped", "cat $F", nil, nil, ""},
	{"echo is nothing", "echo memory-bank/a.md", nil, nil, ""},

	// Parse failures.
	{"unterminated quote", `echo "unterminated`, nil, nil, "WUE"},
	{"unbalanced paren", "(rm a", nil, nil, "WUE"},
	{"bash -c unparsable", `bash -c 'echo "x'`, nil, nil, "WU"},
}

func format(as []Access) []string {
	var out []string
	for _, a := range as {
		s := a.Path
		if a.Unknown {
			s += "?"
		}
		out = append(out, s)
	}
	return out
}

func flags(r Result) string {
	var b strings.Builder
	if r.Write {
		b.WriteByte('W')
	}
	if r.Interpreter {
		b.WriteByte('I')
	}
	if r.Unknown {
		b.WriteByte('U')
	}
	if r.ParseError != "" {
		b.WriteByte('E')
	}
	return b.String()
}

func sortFlags(s string) string {
	var b strings.Builder
	for _, c := range "WIUE" {
		if strings.ContainsRune(s, c) {
			b.WriteRune(c)
		}
	}
	return b.String()
}

func TestClassify(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range cases {
		if seen[c.name] {
			t.Fatalf("duplicate case name %q", c.name)
		}
		seen[c.name] = true
		t.Run(c.name, func(t *testing.T) {
			r := Classify(c.cmd, "/repo")
			if got := format(r.Writes); !reflect.DeepEqual(got, c.writes) {
				t.Errorf("writes = %q, want %q", got, c.writes)
			}
			if got := format(r.Reads); !reflect.DeepEqual(got, c.reads) {
				t.Errorf("reads = %q, want %q", got, c.reads)
			}
			if got, want := flags(r), sortFlags(c.flags); got != want {
				t.Errorf("flags = %q, want %q (%+v)", got, want, r)
			}
			if len(r.Writes) > 0 && !r.Write {
				t.Errorf("writes without Write: %+v", r)
			}
		})
	}
}

func TestOps(t *testing.T) {
	for _, c := range []struct{ name, cmd, op string }{
		{"redirect", "echo > a", "redirect"},
		{"tee", "tee a", "tee"},
		{"sed -i", "sed -i s/a/b/ a", "sed -i"},
		{"git mv", "git mv a b", "git mv"},
		{"interpreter", `python -c "open('a.md','w')"`, "interpreter"},
		{"find -delete", "find a -delete", "find -delete"},
		{"curl -o", "curl -o a u", "curl -o"},
		{"wget -O", "wget -O a u", "wget -O"},
		{"dd", "dd of=a", "dd of="},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := Classify(c.cmd, "")
			if len(r.Writes) == 0 || r.Writes[0].Op != c.op {
				t.Errorf("Writes = %+v, want op %q", r.Writes, c.op)
			}
		})
	}
	if r := Classify("sed -n 1p a", ""); len(r.Reads) != 1 || r.Reads[0].Op != "sed -n" {
		t.Errorf("sed -n read = %+v", r.Reads)
	}
}

func TestRelativeCwd(t *testing.T) {
	for _, c := range []struct{ name, cmd, cwd, want string }{
		{"empty cwd", "rm ./memory-bank//a.md", "", "memory-bank/a.md"},
		{"empty cwd cd", "cd memory-bank && rm a.md", "", "memory-bank/a.md"},
		{"empty cwd cd up", "cd memory-bank && cd .. && rm a.md", "", "a.md"},
		{"empty cwd cd above", "cd .. && rm a.md", "", "../a.md"},
		{"unclean cwd", "rm a.md", "/repo/./x/..", "/repo/a.md"},
		{"partial keeps slash", "rm memory-bank/$X", "", "memory-bank/"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := Classify(c.cmd, c.cwd)
			if len(r.Writes) != 1 || r.Writes[0].Path != c.want {
				t.Errorf("Writes = %+v, want %q", r.Writes, c.want)
			}
		})
	}
}

func TestHugeInput(t *testing.T) {
	r := Classify("echo "+strings.Repeat("a", MaxInput), "/repo")
	if r.ParseError == "" || !r.Write || !r.Unknown {
		t.Errorf("huge input = %+v, want fail-safe", r)
	}
}

func TestManyFilesStayLinear(t *testing.T) {
	var b strings.Builder
	b.WriteString("rm")
	for i := 0; b.Len() < MaxInput-16; i++ {
		b.WriteString(" f")
		b.WriteString(strings.Repeat("x", i%7))
		b.WriteString(string(rune('a' + i%26)))
		b.WriteString(string(rune('a' + i/26%26)))
		b.WriteString(string(rune('a' + i/676%26)))
	}
	r := Classify(b.String(), "/repo")
	if !r.Write || len(r.Writes) < 1000 {
		t.Errorf("got %d writes", len(r.Writes))
	}
}

func TestBraceBombStaysCheap(t *testing.T) {
	alts := "{" + strings.Repeat("a,", 200) + "b}"
	r := Classify("touch x/"+strings.Repeat(alts, 12), "/repo")
	if !r.Write || len(r.Writes) == 0 || len(r.Writes) > maxBraces {
		t.Errorf("got %d writes", len(r.Writes))
	}
}

// Bytes that are not UTF-8 are file-name bytes to bash: such a command is classified like any
// other (the parser alone would refuse it), and its paths keep their own bytes.
func TestClassifyNonUTF8(t *testing.T) {
	for _, tc := range []struct{ cmd, want string }{
		{"echo x > 'memory-bank/\xca'", "memory-bank/\xca"},
		{"echo x > memory-bank/a\xff.json", "memory-bank/a\xff.json"},
		{"cp notes.md 'docs/\x80'", "docs/\x80"},
	} {
		r := Classify(tc.cmd, "")
		if r.ParseError != "" || r.Unknown {
			t.Errorf("%q: parse error %q, unknown %v", tc.cmd, r.ParseError, r.Unknown)
			continue
		}
		if len(r.Writes) != 1 || r.Writes[0].Path != tc.want {
			t.Errorf("%q: writes %+v, want %q", tc.cmd, r.Writes, tc.want)
		}
	}
}
