"""Generate a realistic memory bank for bench/check/run.sh.

usage: python3 gen.py ROOT FILES BYTES_PER_FILE SEED [SHAPE]

SHAPE (default prose) is the kind of Markdown:
  prose    paragraphs between blank lines, tables, code fences
  bullets  long bullet lists, a blank line only between lists of 40-120 items
  tables   wide tables of 50-200 rows
  noblank  prose, tables and code with no blank line anywhere

Prose in the register of engineering notes (security words such as token, key, password and
auth occur, as they do in real notes, at about 1 word in 100; one paragraph in five cites a git
commit id), tables, code fences, fenced examples of the block markers, and generated secrets (a
GitHub token and a curl password on the line after a blank line) in about 1 file in 100.
"""
import os, random, string, sys

root, n, size, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
shape = sys.argv[5] if len(sys.argv) > 5 else "prose"
rnd = random.Random(seed)
common = ("the a an and or but if then when while because so that this these those it its we our they "
          "is are was were be been has have had do does did can could should would will may must not "
          "use used using add added change changed move moved keep kept read write run runs build "
          "test tests fix fixed bug issue decision reason why how what where who which after before "
          "module package service client server request response handler error retry timeout queue "
          "worker cache index query schema table column migration release branch commit review deploy "
          "latency budget limit page list item user session config option default value file folder "
          "path import export function method type struct field interface plugin hook agent memory "
          "bank template block marker note progress pattern design requirement learning archive").split()
sensitive = "token key password secret auth api credential".split()

def word():
    return rnd.choice(sensitive) if rnd.random() < 0.01 else rnd.choice(common)

def para():
    text = " ".join(word() for _ in range(rnd.randint(40, 90))).capitalize()
    if rnd.random() < 0.2:  # notes cite commits
        text += " (fixed in %040x)" % rnd.getrandbits(160)
    return text + ".\n\n"

def table():
    rows = ["| decision | date | note |", "|---|---|---|"]
    for _ in range(rnd.randint(3, 8)):
        rows.append("| %s | 2026-0%d-1%d | %s |" % (word(), rnd.randint(1, 9), rnd.randint(0, 9), " ".join(word() for _ in range(8))))
    return "\n".join(rows) + "\n\n"

def fence():
    return ("Template, for reference:\n\n```markdown\n<!-- MACHINE_BLOCK_START -->\n<!-- MEMORY_BANK_TEMPLATE:v7.1 -->\n"
            "# Project memory\n<!-- MACHINE_BLOCK_END -->\n<!-- USER_BLOCK_START -->\n<!-- USER_BLOCK_END -->\n```\n\n")

def code():
    return ("```go\nfunc (s *Server) handle(w http.ResponseWriter, r *http.Request) {\n"
            "\tif err := s.limit.Wait(r.Context()); err != nil {\n\t\thttp.Error(w, err.Error(), 503)\n\t\treturn\n\t}\n}\n```\n\n")

def bullets():
    return "".join("- " + " ".join(word() for _ in range(rnd.randint(6, 25))) + "\n" for _ in range(rnd.randint(40, 120))) + "\n"

def big_table():
    rows = ["| id | decision | owner | note |", "|---|---|---|---|"]
    for i in range(rnd.randint(50, 200)):
        rows.append("| %d | %s | %s | %s |" % (i, word(), word(), " ".join(word() for _ in range(rnd.randint(5, 14)))))
    return "\n".join(rows) + "\n\n"

def secret():
    tok = "".join(rnd.choice(string.ascii_letters + string.digits) for _ in range(36))
    pw = "".join(rnd.choice(string.ascii_letters + string.digits) for _ in range(14))
    # A token on one line, and a curl password on the line after a blank line (a match that
    # spans the blank line, which gitleaks reports).
    return ("Pasted by mistake while debugging the deploy: GITHUB_TOKEN=ghp_" + tok + "\n\n"
            "curl https://deploy.example.com/hook\n\n -u deployer:" + pw + "\n\n")

def body(limit, with_secret):
    out = ["# " + " ".join(rnd.choice(common) for _ in range(4)).title() + "\n\n"]
    total = len(out[0])
    while total < limit:
        r = rnd.random()
        if shape == "bullets":
            part = bullets() if r < .9 else para()
        elif shape == "tables":
            part = big_table() if r < .85 else para()
        else:
            part = para() if r < .72 else table() if r < .86 else fence() if r < .92 else code()
        out.append(part)
        total += len(part)
    if with_secret:
        out.insert(len(out) // 2, secret())
    text = "".join(out)
    if shape == "noblank":
        while "\n\n" in text:
            text = text.replace("\n\n", "\n")
    return text

bank = os.path.join(root, "memory-bank")
os.makedirs(os.path.join(bank, "details"), exist_ok=True)
with open(os.path.join(bank, "MEMORY.md"), "w") as f:
    f.write("<!-- MACHINE_BLOCK_START -->\n<!-- MEMORY_BANK_TEMPLATE:v7.1 -->\n# Project memory\n\n" + body(size, False) +
            "<!-- MACHINE_BLOCK_END -->\n<!-- USER_BLOCK_START -->\nMy own notes.\n<!-- USER_BLOCK_END -->\n")
dirs = ["design", "requirements", "learnings", "archive"]
for i in range(n - 1):
    d = os.path.join(bank, "details", dirs[i % 4])
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "note-%04d.md" % i), "w") as f:
        f.write(body(size, i % 97 == 5 or n < 20))  # few large files: a secret in each
