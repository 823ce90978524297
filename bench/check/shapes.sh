#!/usr/bin/env bash
# mbguard check --all against gitleaks dir on odd shapes of content (bench/check/shapes.py),
# one run each, side by side; prints the ratio mbguard / gitleaks per shape. Not part of the
# CI guard: a slow shape takes minutes.
#
#   bash bench/check/shapes.sh [bytes]    (default 1000000 per shape; a run gives up at 10 min)
set -euo pipefail
cd "$(dirname "$0")/../.."
size="${1:-1000000}"
rev="$(git rev-parse --short HEAD)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL="$work/gitconfig"
printf '[user]\n\tname = bench\n\temail = bench@example.invalid\n[init]\n\tdefaultBranch = main\n' >"$GIT_CONFIG_GLOBAL"
glver="$(go list -m -f '{{.Version}}' github.com/zricethezav/gitleaks/v8)"
mkdir -p "$work/bin"
CGO_ENABLED=0 go build -o "$work/bin/mbguard" ./cmd/mbguard
GOBIN="$work/bin" GOFLAGS=-mod=mod go install "github.com/zricethezav/gitleaks/v8@$glver" 2>/dev/null
python3 bench/check/shapes.py "$work/r" "$size"
ms() { local s e; s=$(date +%s%N); timeout 600 "$@" >/dev/null 2>&1 || true; e=$(date +%s%N); echo $(((e - s) / 1000000)); }
printf '%-16s %10s %10s %7s\n' shape mbguard gitleaks ratio
for d in "$work"/r/*/; do
  cd "$d"
  rm -f .git/mbguard/check-scan.json
  m=$(ms "$work/bin/mbguard" check --all)
  g=$(ms "$work/bin/gitleaks" dir memory-bank --no-banner --exit-code 0)
  printf '%-16s %8sms %8sms %7s\n' "$(basename "$d")" "$m" "$g" "$(echo "scale=2; $m / $g" | bc)"
done
echo "bench: $rev; $(nproc) cores; $size bytes per shape; gitleaks $glver"
