#!/usr/bin/env bash
# Cost of the commit-provenance check per call (outcome/provenance.go), as ratios against the
# named baseline "check pair" (the pre and post check of a call that changed nothing, on a
# 50-file bank) measured in the same run: when no ref moved (every call pays it), when a ref
# moved during the call (one for-each-ref, one rev-list), when git's work put bank files
# there while the agent has commits (one git log), and the pre check's look-up for a shell
# command naming git when the agent made no commit.
set -euo pipefail
cd "$(dirname "$0")/../.."
go test -count=1 -run '^$' -bench '^BenchmarkProvenanceCheck$' -benchtime "${ROUNDS:-50}x" ./outcome/ | grep -E '^(baseline|Benchmark)'
