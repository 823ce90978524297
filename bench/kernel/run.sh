#!/usr/bin/env bash
# Kernel-line cost per shell call: `sh -c true` (the baseline, same run) against the same
# command under `mbguard jail` (user+mount namespace; bubblewrap when installed) and the full
# line the OpenCode plugin runs; "start" is `mbguard version`, the process start every method
# pays before its own work. Prints p50 of each, the added ms and the ratio. Target: ≤ 5 ms added.
#   bash bench/kernel/run.sh [iterations]      (default 200)
set -euo pipefail
cd "$(dirname "$0")/../.."
n="${1:-200}"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime)"
go test ./bench/kernel -run '^$' -bench 'Kernel' -benchtime "${n}x" -count 1 | tee /dev/stderr | awk '
/^BenchmarkKernel/ {
  for (i = 2; i < NF; i++) if ($(i+1) ~ /-(p50-ms|added-ms|ratio)$/) m[$(i+1)] = $i
}
END {
  printf "\n%-10s %10s %11s %7s\n", "variant", "p50 (ms)", "added (ms)", "ratio"
  printf "%-10s %10.2f %11s %7s\n", "plain", m["plain-p50-ms"], "-", "1.0x"
  split("start userns bwrap opencode", vs, " ")
  for (k = 1; k <= 4; k++) { v = vs[k]; if ((v "-p50-ms") in m)
    printf "%-10s %10.2f %11.2f %6.1fx\n", v, m[v "-p50-ms"], m[v "-added-ms"], m[v "-ratio"] }
}' 2>&1
