#!/usr/bin/env bash
# Outcome-check overhead: the pre+post events of one shell call, with the check off (the
# baseline, same binary, same run) and on, for banks of 10, 200 and 2,000 files, through a
# resident Service (serve) and a per-call Claude hook handled in process (add bench/hook's
# process start for the real per-call cost). Prints p50 per pair, the added p50 and the ratio.
#   bash bench/outcome/run.sh [iterations]      (default 300)
# Then the first hook call on a primed 10,000-file bank against a 10-file bank, and its ratio
# (issue 17's target: <= 2x). Last, the post check of a call that created 2,000 and 20,000
# files: both times, their ratio (linear: 10x) and the 20,000 time against the 5 s target.
set -euo pipefail
cd "$(dirname "$0")/../.."
n="${1:-300}"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime)"
go test ./bench/outcome -run '^$' -bench 'Outcome' -benchtime "${n}x" -count 1 | tee /dev/stderr | awk '
/^BenchmarkOutcome\// {
  split($1, p, "/"); mode = p[2]; files = p[3]; sub("files=", "", files)
  check = p[4]; sub("check=", "", check); sub("-[0-9]+$", "", check)
  for (i = 2; i <= NF; i++) { if ($(i+1) == "p50-ns") v = $i; if ($(i+1) == "ns/op") mv = $i }
  key = mode " " files; val[key, check] = v; mean[key, check] = mv; if (!(key in seen)) { seen[key] = 1; order[++k] = key }
}
END {
  printf "\n%-6s %6s %14s %14s %12s %7s %17s\n", "mode", "files", "p50 off (ms)", "p50 on (ms)", "added (ms)", "ratio", "mean added (ms)"
  for (i = 1; i <= k; i++) {
    split(order[i], a, " "); off = val[order[i], "off"]; on = val[order[i], "on"]
    printf "%-6s %6s %14.3f %14.3f %12.3f %6.1fx %17.3f\n", a[1], a[2], off/1e6, on/1e6, (on-off)/1e6, (off > 0 ? on/off : 0), (mean[order[i], "on"]-mean[order[i], "off"])/1e6
  }
}' 2>&1
echo
go test ./bench/outcome -run '^$' -bench 'FirstCall' -benchtime 30x -count 1 -v | grep -E 'Prime of|first call:'
echo
go test ./bench/outcome -run '^$' -bench 'UndoCreated' -benchtime 1x -count 1 | grep -E 'undo of created files|CPU time of the check|20,000 files:'
