#!/usr/bin/env bash
# What a release build costs on a clean machine: each of the six platforms built the way
# go run -tags release ./release builds it, from an empty build cache, one after the other (each shares only
# the standard library's sources with the one before). Prints wall and CPU (user+sys) seconds
# per platform and the total as a ratio to the first, the host build (the baseline: CI builds
# it anyway). CPU seconds hardly depend on what else runs on the machine; wall seconds do.
#
# Usage: release/cost.sh [GOOS/GOARCH ...]   (default: the six release platforms)
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export GOCACHE="$work/cache"
host=$(go env GOOS)/$(go env GOARCH)
list=("$@")
[ "${#list[@]}" -gt 0 ] || list=("$host" linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64)
seen=" "
base_cpu=
total_cpu=0
total_wall=0
for t in "${list[@]}"; do
  case "$seen" in *" $t "*) continue ;; esac
  seen="$seen$t "
  CGO_ENABLED=0 GOOS=${t%/*} GOARCH=${t#*/} /usr/bin/time -o "$work/time" -f "%e %U %S" \
    go build -trimpath -ldflags "-s -w -X main.version=v0.0.0-cost" -o "$work/bin/$t/mbguard" ./cmd/mbguard
  read -r wall user sys <"$work/time"
  cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN {printf "%.1f", u + s}')
  [ -n "$base_cpu" ] || base_cpu=$cpu
  total_cpu=$(awk -v a="$total_cpu" -v b="$cpu" 'BEGIN {printf "%.1f", a + b}')
  total_wall=$(awk -v a="$total_wall" -v b="$wall" 'BEGIN {printf "%.1f", a + b}')
  printf 'cost: %-14s wall %6.1fs  cpu %6.1fs  (load %s)\n' "$t" "$wall" "$cpu" "$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo ?)"
done
printf 'cost: total          wall %6.1fs  cpu %6.1fs  = %.1f x the host build (%s, %ss cpu, the baseline)\n' \
  "$total_wall" "$total_cpu" "$(awk -v a="$total_cpu" -v b="$base_cpu" 'BEGIN {print a / b}')" "$host" "$base_cpu"
