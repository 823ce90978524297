#!/usr/bin/env bash
# Red-team replay: every attack and harmless call of gating's tables (redteam_test.go,
# rootcause_test.go, badinput_test.go) sent as a Claude Code PreToolUse to the built
# `mbguard hook claude` in a real git repository, in warn and block mode. Prints how many
# attacks were refused before they ran and how many harmless calls the bank/config guard refused.
#   bash bench/redteam/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
out="$PWD/bench/out/redteam"
mkdir -p "$out"
go build -o "$out/mbguard" ./cmd/mbguard
go build -o "$out/runner" ./bench/redteam/testdata/runner
go test ./gating -run '^TestDumpRedTeam$' -count=1 -redteam.out="$out/cases.jsonl" >/dev/null
"$out/runner" "$out/mbguard" "$out/cases.jsonl"
