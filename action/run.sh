#!/usr/bin/env bash
# The GitHub Action's step (action.yml): check memory-bank/ with the mbguard on PATH, leaving
#   - annotations on the pull request (::error/::warning lines on stdout),
#   - a job summary ($GITHUB_STEP_SUMMARY),
#   - a SARIF file for github/codeql-action/upload-sarif (path in the `sarif` output),
#   - the exit code: 1 when an error-level finding exists and fail-on-findings is true.
# Inputs come as environment variables: MBGUARD_SARIF (file to write), MBGUARD_FAIL (true/false),
# MBGUARD_ARGS (extra arguments for mbguard check, e.g. --stale).
set -uo pipefail
sarif="${MBGUARD_SARIF:-mbguard.sarif}"
fail="${MBGUARD_FAIL:-true}"
read -r -a extra <<<"${MBGUARD_ARGS:-}"

if ! command -v mbguard >/dev/null 2>&1; then
  echo "::error title=mbguard::mbguard is not on PATH; install it before this step (see the action's README section)"
  exit 2
fi
mbguard version

mbguard check --all "${extra[@]}" --format sarif >"$sarif"
sarif_status=$?
if [ "$sarif_status" -gt 1 ]; then
  rm -f "$sarif" # empty: upload-sarif must not read it
  # an invalid configuration is annotated where it is (file and line); anything else in one line
  if ! mbguard check --all "${extra[@]}" --format github | grep '^::error '; then
    echo "::error title=mbguard::mbguard check failed (exit $sarif_status); run mbguard check --all locally to see why"
  fi
  exit "$sarif_status"
fi
mbguard check --all "${extra[@]}" --format github
status=$?
if [ -n "${GITHUB_OUTPUT:-}" ]; then
  { echo "sarif=$sarif"; echo "findings=$([ "$status" = 0 ] && echo false || echo true)"; } >>"$GITHUB_OUTPUT"
fi
if [ "$status" -gt 1 ]; then
  exit "$status"
fi
if [ "$status" = 1 ] && [ "$fail" = true ]; then
  exit 1
fi
exit 0
