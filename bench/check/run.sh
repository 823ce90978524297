#!/usr/bin/env bash
# Benchmark: mbguard check against the gitleaks v8.30.1 CLI on the same repositories.
#
#   bash bench/check/run.sh [runs]     (default 5 runs per command; the median is compared)
#
# Builds mbguard from this checkout and gitleaks v8.30.1 (go install, into a temporary GOBIN),
# generates two fixtures with realistic Markdown (prose, tables, code fences with the block
# markers, a few generated secrets), and prints each pair's median wall (and CPU) seconds and
# the ratio of the wall times, against gitleaks as the named baseline:
#   1. 200 staged memory-bank files (~5 MB):  mbguard check --staged  vs  gitleaks git --pre-commit --staged
#   2. a 600-file (~10 MB) bank:              mbguard check --all     vs  gitleaks dir memory-bank
# Targets (issue #4): ratio 1 at most 1.0, ratio 2 at most 0.8.
set -euo pipefail
cd "$(dirname "$0")/../.."
runs="${1:-5}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL="$work/gitconfig"
printf '[user]\n\tname = bench\n\temail = bench@example.invalid\n[init]\n\tdefaultBranch = main\n' >"$GIT_CONFIG_GLOBAL"

echo "bench: building mbguard and gitleaks v8.30.1 (GOBIN=$work/bin)" >&2
mkdir -p "$work/bin"
go build -o "$work/bin/mbguard" ./cmd/mbguard
GOBIN="$work/bin" GOFLAGS=-mod=mod go install github.com/zricethezav/gitleaks/v8@v8.30.1
mbguard="$work/bin/mbguard"
gitleaks="$work/bin/gitleaks"

# gen DIR FILES BYTES_PER_FILE SEED: a memory bank of FILES Markdown files of about BYTES each.
gen() { python3 bench/check/gen.py "$@"; }

# median of the wall-clock seconds, and of the CPU seconds (user+sys, children included), of
# running "$@" $runs times (after one warm-up run): "WALL CPU". CPU shows what a loaded machine
# hides in wall time (whether both cores work, and how much work there is).
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

echo "bench: generating fixtures" >&2
staged="$work/staged"; mkdir -p "$staged"; git -C "$staged" init -q
echo "# project" >"$staged/README.md"; git -C "$staged" add README.md; git -C "$staged" commit -qm init
gen "$staged" 200 25000 1
git -C "$staged" add memory-bank
full="$work/full"; mkdir -p "$full"; git -C "$full" init -q
gen "$full" 600 17000 2
git -C "$full" add memory-bank; git -C "$full" commit -qm bank
echo "bench: staged fixture $(du -sh "$staged/memory-bank" | cut -f1) in $(git -C "$staged" diff --cached --name-only | wc -l) files; full fixture $(du -sh "$full/memory-bank" | cut -f1) in $(find "$full/memory-bank" -type f | wc -l) files; $(nproc) cores" >&2

read -r a1 c1 < <(cd "$staged" && median "$mbguard" check --staged)
read -r b1 d1 < <(cd "$staged" && median "$gitleaks" git --pre-commit --staged --no-banner --exit-code 0 .)
read -r a2 c2 < <(cd "$full" && median "$mbguard" check --all)
read -r b2 d2 < <(cd "$full" && median "$gitleaks" dir memory-bank --no-banner --exit-code 0)

echo "bench: load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown); baseline: gitleaks v8.30.1 CLI, same repository, same run" >&2
printf '%-56s %18s %18s %7s %7s\n' "median of $runs runs, wall (cpu) seconds" "mbguard" "gitleaks v8.30.1" "ratio" "target"
printf '%-56s %8ss (%6s) %8ss (%6s) %6sx %6s\n' "check --staged vs git --pre-commit --staged (200 files)" "$a1" "$c1" "$b1" "$d1" "$(ratio "$a1" "$b1")" "<=1.0x"
printf '%-56s %8ss (%6s) %8ss (%6s) %6sx %6s\n' "check --all vs dir memory-bank (600 files)" "$a2" "$c2" "$b2" "$d2" "$(ratio "$a2" "$b2")" "<=0.8x"
