#!/usr/bin/env bash
# Benchmark: mbguard migrate --apply against the equivalent git mv + git commit script, on a
# 1,000-file legacy bank inside a 20,000-file repository. Each run gets fresh copies of the same
# repository; both are timed in this one invocation, alternating which goes first, and the ratio
# mbguard / baseline is printed per run and for the means (target <= 1.0x).
# Usage: [MBGUARD_BIN=path] bench/migrate/run.sh [runs]
set -euo pipefail
RUNS=${1:-5}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
# before HOME moves: keep Go's caches. MBGUARD_BIN times another build (an older commit's, say).
if [ -n "${MBGUARD_BIN:-}" ]; then cp "$MBGUARD_BIN" "$WORK/mbguard"; else (cd "$ROOT" && CGO_ENABLED=0 go build -o "$WORK/mbguard" ./cmd/mbguard); fi
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL="$WORK/gitconfig" HOME="$WORK"
printf '[user]\n\tname = bench\n\temail = bench@example.invalid\n[init]\n\tdefaultBranch = main\n[commit]\n\tgpgsign = false\n[gc]\n\tauto = 0\n' > "$GIT_CONFIG_GLOBAL"

# the template repository
T="$WORK/template"
mkdir -p "$T" && cd "$T" && git init -q
for d in $(seq 1 190); do mkdir -p "src/pkg$d"; for f in $(seq 1 100); do echo "package pkg$d // $f" > "src/pkg$d/f$f.go"; done; done
mb=memory-bank
mkdir -p $mb/docs $mb/requirements $mb/learnings/sub $mb/archive
printf '# Brief\n\nA big project.\n' > $mb/brief.md
printf '# Active\n\n<!-- MACHINE_BLOCK_START -->\n- focus\n<!-- MACHINE_BLOCK_END -->\n\n<!-- USER_BLOCK_START -->\nmine\n<!-- USER_BLOCK_END -->\n' > $mb/active.md
printf '# Index\n\n- topics\n' > $mb/_index.md
for f in tech patterns progress; do printf "# $f\n\n## one\n" > $mb/$f.md; done
for i in $(seq 1 400); do echo "# design $i" > $mb/docs/d$i.md; done
for i in $(seq 1 300); do echo "# req $i" > $mb/requirements/REQ-$i.md; done
for i in $(seq 1 200); do echo "# learning $i" > $mb/learnings/sub/l$i.md; done
for i in $(seq 1 94); do echo "# archived $i" > $mb/archive/a$i.md; done
git add -A && git commit -qm start && git gc -q
echo "repository: $(git ls-files | wc -l) files, memory bank: $(git ls-files $mb | wc -l) files"

baseline() { # the git mv + git commit script a careful person would write
	cd "$1"
	mkdir -p memory-bank/details
	git mv memory-bank/tech.md memory-bank/patterns.md memory-bank/progress.md memory-bank/details/
	git mv memory-bank/docs memory-bank/details/design
	git mv memory-bank/requirements memory-bank/details/requirements
	git mv memory-bank/learnings memory-bank/details/learnings
	git mv memory-bank/archive memory-bank/details/archive
	git commit -qm "move"
	cat memory-bank/brief.md memory-bank/active.md > memory-bank/MEMORY.md
	cat memory-bank/_index.md > memory-bank/legacy.md
	git rm -q memory-bank/brief.md memory-bank/active.md memory-bank/_index.md
	git add memory-bank/MEMORY.md memory-bank/legacy.md
	git commit -qm "memory"
}
ours() { cd "$1" && "$WORK/mbguard" migrate --apply >/dev/null 2>&1; }

now() { date +%s.%N; }
time_baseline() { local s e; s=$(now); (baseline "$WORK/a"); e=$(now); b=$(echo "$e - $s" | bc); }
time_ours() { local s e; s=$(now); (ours "$B"); e=$(now); o=$(echo "$e - $s" | bc); }
tb=0; to=0; wins=0
for r in $(seq 1 "$RUNS"); do
	rm -rf "$WORK/a" "$WORK/b"*
	# a new path each run: mbguard keys its copy outside the repository by the git folder's path,
	# and a repository at the path of the last run's would find that run's known-good state
	B="$WORK/b$r"
	cp -a "$T" "$WORK/a"; cp -a "$T" "$B"
	(cd "$WORK/a" && git status -s >/dev/null); (cd "$B" && git status -s >/dev/null) # same warm index for both
	# alternate which runs first, so neither always inherits the warmer page cache
	if [ $((r % 2)) = 1 ]; then time_baseline; time_ours; else time_ours; time_baseline; fi
	[ "$(cd "$B" && git rev-list --count HEAD)" = 3 ] || { echo "mbguard migrate did not make two commits"; exit 1; }
	[ -z "$(cd "$B" && git status --porcelain)" ] || { echo "mbguard migrate left the work tree dirty"; exit 1; }
	[ "$(cd "$B" && git diff -M --name-status HEAD~2 HEAD~1 | grep -vc '^R100')" = 0 ] || { echo "mbguard migrate's first commit is not all R100 renames"; exit 1; }
	printf 'run %d: baseline (git mv + git commit script) %.3fs   mbguard migrate --apply %.3fs   ratio %.2fx\n' "$r" "$b" "$o" "$(echo "$o / $b" | bc -l)"
	tb=$(echo "$tb + $b" | bc); to=$(echo "$to + $o" | bc)
	if [ "$(echo "$o <= $b" | bc)" = 1 ]; then wins=$((wins + 1)); fi
done
printf 'mean of %d runs: baseline (git mv + git commit script) %.3fs, mbguard migrate --apply %.3fs\n' \
	"$RUNS" "$(echo "$tb / $RUNS" | bc -l)" "$(echo "$to / $RUNS" | bc -l)"
printf 'ratio mbguard / baseline: %.2fx (target <= 1.0x); mbguard was at least as fast in %d of %d runs\n' \
	"$(echo "$to / $tb" | bc -l)" "$wins" "$RUNS"
