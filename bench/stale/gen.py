"""Generate the repository and memory bank for bench/stale/run.sh.

usage: python3 gen.py ROOT FILES NOTES SEED

Builds, in the git repository at ROOT (already initialised), FILES source files under src/
(Go files that each define a few functions), a Makefile and a package.json, and commits them;
then a second commit renames 2% of the files, deletes 2%, removes a tenth of the make targets
and npm scripts, and renames 1% of the functions. NOTES bank notes under memory-bank/ name
paths (existing, renamed, deleted, relative and as links), make targets, npm scripts and
symbols in prose, code spans and shell fences. Writes ROOT/../names.txt: every distinct name
the notes reference, one per line (the git grep baseline searches for them).
"""
import os, random, subprocess, sys

root, nfiles, nnotes, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rnd = random.Random(seed)

def write(rel, text):
    p = os.path.join(root, rel)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, "w") as f:
        f.write(text)

def git(*args):
    subprocess.run(["git", "-C", root] + list(args), check=True, stdout=subprocess.DEVNULL)

files, funcs = [], {}
for i in range(nfiles):
    rel = "src/mod%03d/file%05d.go" % (i // 100, i)
    names = ["Func%05d%s" % (i, c) for c in "ABC"]
    funcs[rel] = names
    files.append(rel)
    write(rel, "package mod%03d\n\n" % (i // 100) + "".join("func %s() {}\n\n" % n for n in names))
targets = ["target%03d" % i for i in range(200)]
scripts = ["script%03d" % i for i in range(200)]
write("Makefile", "".join("%s:\n\t@echo %s\n" % (t, t) for t in targets))
write("package.json", '{"name": "bench", "scripts": {%s}}\n' % ", ".join('"%s": "echo %s"' % (s, s) for s in scripts))
git("add", "-A"); git("commit", "-qm", "initial")

shuffled = files[:]
rnd.shuffle(shuffled)
k = nfiles // 50
renamed = shuffled[:k]
deleted = shuffled[k:2 * k]
for rel in renamed:  # git add -A below records these as renames (identical content)
    os.rename(os.path.join(root, rel), os.path.join(root, rel.replace("/file", "/moved_file")))
for rel in deleted:
    os.remove(os.path.join(root, rel))
gone_targets = set(rnd.sample(targets, 20))
gone_scripts = set(rnd.sample(scripts, 20))
write("Makefile", "".join("%s:\n\t@echo %s\n" % (t, t) for t in targets if t not in gone_targets))
write("package.json", '{"name": "bench", "scripts": {%s}}\n' % ", ".join('"%s": "echo %s"' % (s, s) for s in scripts if s not in gone_scripts))
gone_funcs = set()
for rel in rnd.sample(shuffled[2 * k:], nfiles // 100):
    old = funcs[rel][0]
    gone_funcs.add(old)
    p = os.path.join(root, rel)
    with open(p) as f:
        text = f.read()
    with open(p, "w") as f:
        f.write(text.replace(old + "(", old + "V2("))
git("add", "-A"); git("commit", "-qm", "refactor: move, delete, rename")

names = set()
words = "the queue retries after a timeout and the cache keeps the index warm while the worker reads".split()
for n in range(nnotes):
    lines = ["# Note %d" % n, ""]
    for _ in range(12):
        prose = " ".join(rnd.choice(words) for _ in range(rnd.randint(8, 20)))
        kind = rnd.random()
        rel = rnd.choice(files)
        if kind < 0.4:
            ref = "`%s`" % rel; names.add(rel)
        elif kind < 0.5:
            ref = "[the file](../%s)" % rel; names.add(rel)
        elif kind < 0.6:
            ref = os.path.dirname(rel) + "/"; names.add(ref)
        elif kind < 0.7:
            t = rnd.choice(targets); ref = "`make %s`" % t; names.add(t)
        elif kind < 0.8:
            s = rnd.choice(scripts); ref = "`npm run %s`" % s; names.add(s)
        else:
            f = rnd.choice(funcs[rel]); ref = "`%s()`" % f; names.add(f)
        lines.append("%s %s, and/or %s." % (prose.capitalize(), ref, rnd.choice(words)))
        lines.append("")
    if n % 10 == 0:
        t = rnd.choice(targets)
        lines += ["```sh", "make %s && ./%s" % (t, rnd.choice(files)), "```", ""]
        names.add(t)
    write("memory-bank/notes/note%04d.md" % n, "\n".join(lines))
git("add", "-A"); git("commit", "-qm", "bank")
with open(os.path.join(os.path.dirname(os.path.abspath(root)), "names.txt"), "w") as f:
    f.write("\n".join(sorted(names)) + "\n")
print("renamed %d, deleted %d, targets %d, scripts %d, functions %d" % (len(renamed), len(deleted), len(gone_targets), len(gone_scripts), len(gone_funcs)), file=sys.stderr)
