#!/usr/bin/env bash
# Benchmark: mbguard check against the gitleaks v8.30.1 CLI on the same repositories, on
# several shapes of memory bank, in one run.
#
#   bash bench/check/run.sh [runs]     (default 3 runs per command; the median is compared)
#
# Builds mbguard from this checkout and gitleaks v8.30.1 (go install of the version go.mod
# pins, from the module cache, into a temporary GOBIN), then generates one repository per
# shape with gen.py, its memory bank staged (not committed), and times, against gitleaks as
# the named baseline:
#   --staged:  mbguard check --staged  vs  gitleaks git --pre-commit --staged
#   --all:     mbguard check --all     vs  gitleaks dir memory-bank
# Shapes: prose (paragraphs), bullets (long lists), tables, noblank (no blank line at all),
# large (four files of ~4 MB). Every file with a generated secret holds a GitHub token and a
# curl password on the line after a blank line; recall compares the secret findings of
# mbguard check --all with gitleaks dir's. Target (issue #10): ratio <= 0.5 on every line,
# with mbguard finding at least what gitleaks finds.
set -euo pipefail
cd "$(dirname "$0")/../.."
runs="${1:-3}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL="$work/gitconfig"
printf '[user]\n\tname = bench\n\temail = bench@example.invalid\n[init]\n\tdefaultBranch = main\n' >"$GIT_CONFIG_GLOBAL"

glver="$(go list -m -f '{{.Version}}' github.com/zricethezav/gitleaks/v8)"
echo "bench: building mbguard and gitleaks $glver (GOBIN=$work/bin)" >&2
mkdir -p "$work/bin"
go build -o "$work/bin/mbguard" ./cmd/mbguard
GOBIN="$work/bin" GOFLAGS=-mod=mod go install "github.com/zricethezav/gitleaks/v8@$glver"
mbguard="$work/bin/mbguard"
gitleaks="$work/bin/gitleaks"

# median of the wall-clock seconds, and of the CPU seconds (user+sys, children included), of
# running "$@" $runs times (after one warm-up run): "WALL CPU".
median() {
  "$@" >/dev/null 2>&1 || true
  local walls=() cpus=() t
  for _ in $(seq "$runs"); do
    t=$( { TIMEFORMAT='%R %U %S'; time "$@" >/dev/null 2>&1 || true; } 2>&1 )
    read -r w u s <<<"$t"
    walls+=("$w"); cpus+=("$(awk -v u="$u" -v s="$s" 'BEGIN {printf "%.3f", u+s}')")
  done
  printf '%s %s\n' "$(printf '%s\n' "${walls[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.3f", a[int((NR+1)/2)]}')" \
    "$(printf '%s\n' "${cpus[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.3f", a[int((NR+1)/2)]}')"
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a/b}'; }

# fixture NAME FILES BYTES SHAPE
fixture() {
  local dir="$work/$1"
  mkdir -p "$dir"; git -C "$dir" init -q
  echo "# project" >"$dir/README.md"; git -C "$dir" add README.md; git -C "$dir" commit -qm init
  python3 bench/check/gen.py "$dir" "$2" "$3" 7 "$4"
  git -C "$dir" add memory-bank
  echo "$dir"
}

printf '%-10s %-9s %18s %18s %7s %s\n' "shape" "mode" "mbguard" "gitleaks $glver" "ratio" "secrets found (mbguard/gitleaks)"
for spec in "prose 300 17000 prose" "bullets 300 17000 bullets" "tables 300 17000 tables" "noblank 300 17000 noblank" "large 4 4000000 prose"; do
  read -r name files bytes shape <<<"$spec"
  dir="$(fixture "$name" "$files" "$bytes" "$shape")"
  size="$(du -sh "$dir/memory-bank" | cut -f1)"
  ours="$(cd "$dir" && "$mbguard" check --all --format json 2>/dev/null | grep -o '"rule": *"secret:[^"]*"' | wc -l || true)"
  (cd "$dir" && "$gitleaks" dir memory-bank --no-banner --exit-code 0 --report-format json --report-path "$work/gl.json" >/dev/null 2>&1) || true
  theirs="$(grep -o '"RuleID": *"[^"]*"' "$work/gl.json" | wc -l || true)"
  read -r a1 c1 < <(cd "$dir" && median "$mbguard" check --staged)
  read -r b1 d1 < <(cd "$dir" && median "$gitleaks" git --pre-commit --staged --no-banner --exit-code 0 .)
  read -r a2 c2 < <(cd "$dir" && median "$mbguard" check --all)
  read -r b2 d2 < <(cd "$dir" && median "$gitleaks" dir memory-bank --no-banner --exit-code 0)
  printf '%-10s %-9s %8ss (%6s) %8ss (%6s) %6sx\n' "$name" "--staged" "$a1" "$c1" "$b1" "$d1" "$(ratio "$a1" "$b1")"
  printf '%-10s %-9s %8ss (%6s) %8ss (%6s) %6sx %s/%s  (%s in %s files)\n' "$name" "--all" "$a2" "$c2" "$b2" "$d2" "$(ratio "$a2" "$b2")" "$ours" "$theirs" "$size" "$files"
done
echo "bench: median of $runs runs, wall (cpu) seconds; $(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown); baseline: gitleaks $glver CLI, same repository, same run" >&2
