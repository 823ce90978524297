#!/usr/bin/env bash
# Benchmark: mbguard check --stale on a 2,000-note bank in a 20,000-file repository, against
# git grep of the same names in the same run.
#
#   bash bench/stale/run.sh [runs] [files] [notes]   (defaults 3, 20000, 2000)
#
# gen.py builds the repository (two commits of history: renames, deletions, removed make
# targets, npm scripts and functions) and the bank, and lists every distinct name the notes
# reference. The named baseline is `git grep --cached -F -w -c` of the same names, one git grep
# per 250 names: the least a checker that greps for each name must do. (One git grep of all
# 14,000 names did not finish in 15 minutes: git tries every fixed string on every line, so
# its cost grows faster than the number of names; chunks keep the baseline measurable.)
# Target (issue #19): mbguard check --stale <= 1 s. The ratio is mbguard / git grep.
set -euo pipefail
cd "$(dirname "$0")/../.."
runs="${1:-3}"; files="${2:-20000}"; notes="${3:-2000}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL="$work/gitconfig"
printf '[user]\n\tname = bench\n\temail = bench@example.invalid\n[init]\n\tdefaultBranch = main\n' >"$GIT_CONFIG_GLOBAL"
go build -o "$work/mbguard" ./cmd/mbguard
repo="$work/repo"; mkdir -p "$repo"; git -C "$repo" init -q
echo "bench: generating $files files and $notes notes" >&2
python3 bench/stale/gen.py "$repo" "$files" "$notes" 7

median() {
  "$@" >/dev/null 2>&1 || true
  local walls=() t
  for _ in $(seq "$runs"); do
    t=$( { TIMEFORMAT='%R'; time "$@" >/dev/null 2>&1 || true; } 2>&1 )
    walls+=("$t")
  done
  printf '%s\n' "${walls[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.3f", a[int((NR+1)/2)]}'
}

found="$(cd "$repo" && "$work/mbguard" check --stale --format json 2>/dev/null | grep -o '"rule": *"stale-[a-z]*"' | sort | uniq -c | awk '{printf "%s %s; ", $1, $3}')"
ours="$(cd "$repo" && median "$work/mbguard" check --stale)"
split -l 250 "$work/names.txt" "$work/chunk."
grep_all() { for c in "$work"/chunk.*; do git grep --cached -F -w -c -f "$c" >/dev/null || true; done; }
export -f grep_all; export work
base="$(cd "$repo" && median bash -c grep_all)"
cpu="$(cd "$repo" && { TIMEFORMAT='%U %S'; time "$work/mbguard" check --stale >/dev/null 2>&1 || true; } 2>&1 | awk '{printf "%.3f", $1+$2}')"
printf '%-32s %8ss (CPU of one run, git children included: %ss)\n' "mbguard check --stale" "$ours" "$cpu"
printf '%-32s %8ss\n' "git grep -F -w (250 names a run)" "$base"
printf 'ratio %sx; target <= 1 s; findings: %s\n' "$(awk -v a="$ours" -v b="$base" 'BEGIN {printf "%.2f", a/b}')" "$found"
echo "bench: median of $runs runs, wall seconds; $(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg); $(wc -l <"$work/names.txt") names" >&2
