#!/usr/bin/env bash
# Build mbguard and run the serve round-trip benchmark: bash bench/serve/run.sh [bench.mjs flags]
set -euo pipefail
cd "$(dirname "$0")/../.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
go build -o "$out/mbguard" ./cmd/mbguard
node bench/serve/bench.mjs --bin "$out/mbguard" "$@"
