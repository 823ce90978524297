#!/usr/bin/env bash
# Every figure of issue #29's table, each against its baseline in the same run, printed as
# ratios (candidate / baseline; lower is better):
#
#   bash bench/all.sh            the issue's sizes (several minutes; migrate runs bench/migrate)
#   bash bench/all.sh --short    smaller inputs, under ~2 min on 2 cores; exits 1 when a ratio
#                                is more than 1.3x its value in bench/reference-short.txt
#   bash bench/all.sh --short --update   rewrites bench/reference-short.txt from this run (the
#                                committed file keeps each row's highest of three runs:
#                                bench/README.md)
#
# The hook rows run mbguard-hook, the program install writes into the hosts' hook entries; one
# row runs the same call through mbguard for comparison.
#
# Ratios, never wall time: the machine may be slow or busy, but candidate and baseline share
# it, interleaved run by run, and each side is the median of its runs. Baselines: a hello-world
# Go program that parses the hook payload (hooks, the 64 MB file), the gitleaks CLI at the
# version go.mod pins (check), git grep (stale), a git mv script (migrate).
set -euo pipefail
cd "$(dirname "$0")/.."
here="$PWD"
short=0 update=0
for a in "$@"; do
  case "$a" in
    --short) short=1 ;;
    --update) update=1 ;;
    *) echo "usage: bash bench/all.sh [--short [--update]]" >&2; exit 2 ;;
  esac
done
ref="$here/bench/reference-short.txt"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

glver="$(go list -m -f '{{.Version}}' github.com/zricethezav/gitleaks/v8)"
mkdir -p "$work/bin"
# as releases and npm packages ship them (release/build.go): static, no cgo. A cgo build is
# linked dynamically, and the loader costs each hook start about a millisecond
CGO_ENABLED=0 go build -o "$work/bin/" ./cmd/mbguard ./cmd/mbguard-hook
go build -o "$work/bin/hello" ./bench/hook/testdata/hello
GOBIN="$work/bin" GOFLAGS=-mod=mod go install "github.com/zricethezav/gitleaks/v8@$glver" 2>/dev/null
mb="$work/bin/mbguard" hk="$work/bin/mbguard-hook" gl="$work/bin/gitleaks" hello="$work/bin/hello"

export HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL="$work/gitconfig"
mkdir -p "$HOME"
printf '[user]\n\tname = bench\n\temail = bench@example.invalid\n[init]\n\tdefaultBranch = main\n[commit]\n\tgpgsign = false\n' >"$GIT_CONFIG_GLOBAL"

if [ "$short" = 1 ]; then
  hookruns=30 runs=3 files=100 ent=262144 write=524288 srcfiles=2000 notes=200
else
  hookruns=100 runs=5 files=600 ent=1000000 write=2097152 srcfiles=20000 notes=2000
fi

# pair NAME RUNS DIR STDIN CANDIDATE... -- BASELINE...: runs both RUNS times, interleaved,
# in DIR with STDIN (or /dev/null), and records NAME with the ratio of the medians. With REPS
# set, each timed run starts the command REPS times in a row: a run of a few milliseconds is
# below what `time` resolves.
results=()
pair() {
  local name="$1" n="$2" dir="$3" in="$4" reps="${REPS:-1}"; shift 4
  local cand=() base=() t
  while [ "$1" != "--" ]; do cand+=("$1"); shift; done; shift
  base=("$@")
  local ct=() bt=()
  (cd "$dir" && "${cand[@]}" <"$in" >/dev/null 2>&1) || true # warm both
  (cd "$dir" && "${base[@]}" <"$in" >/dev/null 2>&1) || true
  for _ in $(seq "$n"); do
    t=$( { TIMEFORMAT='%3R'; time (cd "$dir" && for _ in $(seq "$reps"); do "${cand[@]}" <"$in" >/dev/null 2>&1 || true; done); } 2>&1 ); ct+=("$t")
    t=$( { TIMEFORMAT='%3R'; time (cd "$dir" && for _ in $(seq "$reps"); do "${base[@]}" <"$in" >/dev/null 2>&1 || true; done); } 2>&1 ); bt+=("$t")
  done
  local cm bm
  cm="$(printf '%s\n' "${ct[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')"
  bm="$(printf '%s\n' "${bt[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')"
  local r
  r="$(awk -v a="$cm" -v b="$bm" 'BEGIN {if (b <= 0) b = 0.001; printf "%.2f", a/b}')"
  printf '%-30s %6s   (%s vs %s per run)\n' "$name" "$r" \
    "$(awk -v t="$cm" -v k="$reps" 'BEGIN {printf "%.4fs", t/k}')" "$(awk -v t="$bm" -v k="$reps" 'BEGIN {printf "%.4fs", t/k}')"
  results+=("$name $r")
}

# --- hooks: a repository with a bank and a session ----------------------------------------
repo="$work/hookrepo"
mkdir -p "$repo/memory-bank/details" "$repo/src"
git -C "$repo" init -q
printf '# Memory\n<!-- MACHINE_BLOCK_START -->\n<!-- MEMORY_BANK_TEMPLATE:v7.1 -->\n<!-- MACHINE_BLOCK_END -->\n<!-- USER_BLOCK_START -->\n<!-- USER_BLOCK_END -->\n' >"$repo/memory-bank/MEMORY.md"
printf 'package src\n' >"$repo/src/app.go"
printf '# Notes\n\nthe retry queue drains every minute\n' >"$repo/memory-bank/details/notes.md"
sid="bench-0000-0000"
printf '{"hook_event_name":"UserPromptSubmit","session_id":"%s","cwd":"%s","prompt":"go"}' "$sid" "$repo" | "$mb" hook claude >/dev/null 2>&1 || true
for ev in PreToolUse PostToolUse; do # the memory was read this turn: a bank write is scanned, not refused
  printf '{"hook_event_name":"%s","session_id":"%s","cwd":"%s","tool_name":"Read","tool_input":{"file_path":"%s/memory-bank/MEMORY.md"},"tool_response":{},"tool_use_id":"toolu_00"}' "$ev" "$sid" "$repo" "$repo" | "$mb" hook claude >/dev/null 2>&1 || true
done
printf '{"hook_event_name":"PreToolUse","session_id":"%s","cwd":"%s","tool_name":"Edit","tool_input":{"file_path":"%s/src/app.go","old_string":"package src","new_string":"package src // edited","replace_all":false},"tool_use_id":"toolu_01"}' "$sid" "$repo" "$repo" >"$work/pre.json"
printf '{"hook_event_name":"SessionStart","session_id":"%s","cwd":"%s","source":"startup"}' "$sid" "$repo" >"$work/start.json"
printf '{"hook_event_name":"PreToolUse","session_id":"%s","cwd":"%s","tool_name":"Edit","tool_input":{"file_path":"%s/memory-bank/details/notes.md","old_string":"every minute","new_string":"every 30 seconds","replace_all":false},"tool_use_id":"toolu_03"}' "$sid" "$repo" "$repo" >"$work/bank.json"
export REPS=10 # the hook rows and the 64 MB row take milliseconds
pair "hook PreToolUse Edit" "$hookruns" "$repo" "$work/pre.json" "$hk" hook claude -- "$hello"
pair "hook PreToolUse Edit (mbguard)" "$hookruns" "$repo" "$work/pre.json" "$mb" hook claude -- "$hello"
pair "hook PreToolUse Edit bank .md" "$hookruns" "$repo" "$work/bank.json" "$hk" hook claude -- "$hello"
pair "hook SessionStart" "$hookruns" "$repo" "$work/start.json" "$hk" hook claude -- "$hello"
unset REPS

# The same calls as Claude Code's http hooks (watch.http_port): mbguard watch answers them,
# no process starts. httppost times each POST (a new connection each) interleaved with a
# start of hello on the same payload, in one program, and prints the ratio of the medians.
port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
printf 'watch:\n  http_port: %s\n' "$port" >>"$repo/.mbguard.yaml"
(cd "$repo" && "$mb" watch --detach >/dev/null 2>&1)
trap '(cd "$repo" && "$mb" watch --stop) >/dev/null 2>&1; rm -rf "$work"' EXIT
go build -o "$work/bin/httppost" ./bench/hook/testdata/httppost
for row in "hook PreToolUse Edit (http):pre.json" "hook PreToolUse Edit bank .md (http):bank.json"; do
  name="${row%:*}"
  read -r r hm sm < <("$work/bin/httppost" -n $((hookruns * 10)) -exec "$hello" "http://127.0.0.1:$port/hook/claude" "$work/${row##*:}")
  printf '%-30s %6s   (%s vs %s per call)\n' "$name" "$r" "$hm" "$sm"
  results+=("$name $r")
done
# SessionStart stays a process (Claude Code sends it to command hooks only): with the watcher
# running, mbguard-hook asks it over its unix socket
REPS=10 pair "hook SessionStart (watch)" "$hookruns" "$repo" "$work/start.json" "$hk" hook claude -- "$hello"
[ -f "$repo/.git/mbguard/watch.stray" ] && echo "bench: $(cat "$repo/.git/mbguard/watch.stray")" >&2
(cd "$repo" && "$mb" watch --stop >/dev/null 2>&1)

# cold CMD...: runs CMD without check's secret-scan cache (.git/mbguard/check-scan.json),
# as a fresh clone in CI would: the figures compare scanning with scanning.
cat >"$work/bin/cold" <<'EOF2'
#!/bin/sh
rm -f .git/mbguard/check-scan.json # the fixtures are plain repositories: .git is a folder
exec "$@"
EOF2
chmod +x "$work/bin/cold"
cold="$work/bin/cold"

# --- check vs gitleaks on prose, staged and on disk ---------------------------------------
fixture() { # DIR FILES BYTES SHAPE
  mkdir -p "$1"; git -C "$1" init -q
  echo "# project" >"$1/README.md"; git -C "$1" add README.md; git -C "$1" commit -qm init
  python3 bench/check/gen.py "$1" "$2" "$3" 7 "$4"
  git -C "$1" add memory-bank
}
fixture "$work/prose" "$files" 17000 prose
pair "check --all (prose)" "$runs" "$work/prose" /dev/null "$cold" "$mb" check --all -- "$gl" dir memory-bank --no-banner --exit-code 0
pair "check --staged (prose)" "$runs" "$work/prose" /dev/null "$cold" "$mb" check --staged -- "$gl" git --pre-commit --staged --no-banner --exit-code 0 .

# --- high-entropy Markdown: base64 blobs and random ids -----------------------------------
entropy() { # DIR FILES BYTES
  python3 - "$@" <<'EOF'
import base64, os, random, string, sys
root, n, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rnd = random.Random(1)
words = "the build cache key token release deploy session id user hash commit blob value note".split()
def rid(k): return "".join(rnd.choice(string.ascii_letters + string.digits) for _ in range(k))
def part():
    r = rnd.random()
    if r < .3:
        return "![img](data:image/png;base64," + base64.b64encode(rnd.randbytes(rnd.randint(300, 3000))).decode() + ")\n\n"
    if r < .5:
        b = base64.b64encode(rnd.randbytes(rnd.randint(300, 3000))).decode()
        return "```\n" + "\n".join(b[i:i+76] for i in range(0, len(b), 76)) + "\n```\n\n"
    if r < .8:
        return "| " + " | ".join(rid(rnd.choice([16, 24, 32, 40])) for _ in range(4)) + " |\n"
    return " ".join(rnd.choice(words) if rnd.random() < .6 else rid(rnd.randint(12, 40)) for _ in range(20)) + "\n\n"
d = os.path.join(root, "memory-bank", "details")
os.makedirs(d, exist_ok=True)
for i in range(n):
    out, t = ["# blobs\n\n"], 0
    while t < size:
        p = part(); out.append(p); t += len(p)
    open(os.path.join(d, "blob-%d.md" % i), "w").write("".join(out))
EOF
}
mkdir -p "$work/ent"; git -C "$work/ent" init -q
entropy "$work/ent" 4 "$ent"
pair "check --all (high-entropy)" "$runs" "$work/ent" /dev/null "$cold" "$mb" check --all -- "$gl" dir memory-bank --no-banner --exit-code 0

# A Write of one high-entropy note through the hook, against gitleaks on the same bytes.
mkdir -p "$work/w"; git -C "$work/w" init -q
entropy "$work/w" 1 "$write"
mkdir -p "$work/w/memory-bank"
printf '# Memory\n<!-- MACHINE_BLOCK_START -->\n<!-- MEMORY_BANK_TEMPLATE:v7.1 -->\n<!-- MACHINE_BLOCK_END -->\n<!-- USER_BLOCK_START -->\n<!-- USER_BLOCK_END -->\n' >"$work/w/memory-bank/MEMORY.md"
python3 - "$work/w" "$sid" >"$work/write.json" <<'EOF'
import json, sys
root, sid = sys.argv[1], sys.argv[2]
text = open(root + "/memory-bank/details/blob-0.md").read()
print(json.dumps({"hook_event_name": "PreToolUse", "session_id": sid, "cwd": root, "tool_name": "Write",
                  "tool_input": {"file_path": root + "/memory-bank/details/new.md", "content": text}, "tool_use_id": "toolu_02"}))
EOF
pair "hook Write (high-entropy)" "$runs" "$work/w" "$work/write.json" "$hk" hook claude -- "$gl" dir memory-bank/details --no-banner --exit-code 0

# --- a 64 MB file in the bank -------------------------------------------------------------
mkdir -p "$work/big/memory-bank"; git -C "$work/big" init -q
cp "$repo/memory-bank/MEMORY.md" "$work/big/memory-bank/"
truncate -s 64M "$work/big/memory-bank/huge.md"
REPS=10 pair "check, 64 MB file" "$runs" "$work/big" /dev/null "$cold" "$mb" check --all -- "$hello"

# --- stale notes vs git grep --------------------------------------------------------------
mkdir -p "$work/stale/repo"; git -C "$work/stale/repo" init -q
python3 bench/stale/gen.py "$work/stale/repo" "$srcfiles" "$notes" 7 >/dev/null
split -l 250 "$work/stale/names.txt" "$work/stale/chunk."
printf '#!/bin/sh\nfor c in %s/stale/chunk.*; do git grep --cached -F -w -c -f "$c" >/dev/null; done; true\n' "$work" >"$work/grepall"
chmod +x "$work/grepall"
pair "check --stale" "$runs" "$work/stale/repo" /dev/null "$mb" check --stale -- "$work/grepall"

# --- migrate vs a git mv script (full run only: its 19,000-file repository takes minutes) --
if [ "$short" = 0 ]; then
  r="$(bash bench/migrate/run.sh 3 | awk '/^run /{print $NF}' | tr -d x | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')"
  printf '%-30s %6s   (bench/migrate, median of 3)\n' "migrate --apply" "$r"
  results+=("migrate --apply $r")
fi

echo "bench: $(git rev-parse --short HEAD); $(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg); gitleaks $glver" >&2

[ "$short" = 1 ] || exit 0
if [ "$update" = 1 ]; then
  printf '%s\n' "${results[@]}" >"$ref"
  echo "bench: wrote $ref" >&2
  exit 0
fi
fail=0
for line in "${results[@]}"; do
  name="${line% *}" now="${line##* }"
  was="$(awk -v n="$name" '{r=$NF; $NF=""; sub(/ $/, ""); if ($0 == n) print r}' "$ref")"
  if [ -z "$was" ]; then
    echo "bench: $name has no reference ratio in $ref (run with --short --update)" >&2
    fail=1
  elif awk -v a="$now" -v b="$was" 'BEGIN {exit !(a > 1.3 * b)}'; then
    echo "bench: $name got worse: ratio $now, reference $was (more than 1.3x)" >&2
    fail=1
  fi
done
exit "$fail"
