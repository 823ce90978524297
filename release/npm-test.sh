#!/usr/bin/env bash
# Installs the npm packages as a user's project would, from tarballs instead of the registry,
# and runs them: `npm pack` the host's platform package and the main package that
# `go run -tags release ./release --snapshot` wrote, `npm install` both into a clean project holding a copy of
# examples/good-bank, then `npx mbguard version`, `npx mbguard install --agent claude`,
# `npx mbguard check --all` (passing, then failing with exit 1 on examples/broken-bank), and the
# launcher's error without its platform package.
#
# The registry is an address nothing listens on: npm must install with only the host's package
# at hand and the other five optional dependencies unreachable, as on a machine where they
# are not published yet (it does: a missing optional dependency is not an error).
#
# Usage: release/npm-test.sh [dist]   dist is go run -tags release ./release's output; without it the host's
#                                     snapshot is built into a temporary folder.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

dist=${1:-}
if [ -z "$dist" ]; then
  dist="$work/dist"
  go run -tags release ./release --snapshot --targets host --dist "$dist"
fi
dist=$(cd "$dist" && pwd)
host=$(node -p '"mbguard-" + process.platform + "-" + process.arch')
if [ ! -f "$dist/npm/$host/package.json" ] || [ ! -f "$dist/npm/mbguard/package.json" ]; then
  echo "npm-test: $dist has no npm/$host or npm/mbguard: build them with go run -tags release ./release --snapshot --targets host" >&2
  exit 1
fi
version=$(node -p 'require(process.argv[1]).version' "$dist/npm/mbguard/package.json")

fail() {
  echo "npm-test: $*" >&2
  exit 1
}
npmq() {
  npm --cache "$work/npm-cache" --registry=http://127.0.0.1:9/ --fetch-retries=0 \
    --no-audit --no-fund --update-notifier=false --loglevel=error "$@"
}

mkdir "$work/tgz" "$work/app"
npmq pack --pack-destination "$work/tgz" "$dist/npm/$host" "$dist/npm/mbguard" >/dev/null
cp -R "$root/examples/good-bank/." "$work/app/"
cd "$work/app"
git init -q
printf 'node_modules/\n' >.gitignore
printf '{ "private": true }\n' >package.json
echo "npm-test: npm install $host-$version.tgz mbguard-$version.tgz (registry unreachable)"
npmq install "$work/tgz/$host-$version.tgz" "$work/tgz/mbguard-$version.tgz"
for other in node_modules/mbguard-*; do
  [ "$other" = "node_modules/$host" ] || fail "npm installed $other on $host; only $host belongs here"
done

out=$(npx --no-install mbguard version) || fail "npx mbguard version exited $?: $out"
case "$out" in
"mbguard v$version "* | "mbguard v$version") echo "npm-test: $out" ;;
*) fail "npx mbguard version printed \"$out\", want mbguard v$version" ;;
esac

# The issue's promise: npx mbguard install --agent claude without Go. The hooks it writes must
# name a binary that runs.
out=$(npx --no-install mbguard install --agent claude 2>&1) || fail "npx mbguard install --agent claude exited $?: $out"
hook=$(node -p 'require("./.claude/settings.json").hooks.PreToolUse[0].hooks[0].command')
# the command is a shell line that finds the project at run time (no path of this checkout)
case "$hook" in *"$work"*) fail "the Claude Code hook names this checkout's path: $hook" ;; esac
sh -c "${hook% hook claude} version" >/dev/null || fail "the Claude Code hook npx mbguard install wrote does not run: $hook"
echo "npm-test: npx mbguard install --agent claude: PreToolUse runs $hook"

out=$(npx --no-install mbguard check --all 2>&1) || fail "npx mbguard check --all on examples/good-bank exited $?: $out"
echo "npm-test: good-bank: $out"

rm -rf memory-bank
cp -R "$root/examples/broken-bank/memory-bank" .
status=0
out=$(npx --no-install mbguard check --all 2>&1) || status=$?
[ "$status" = 1 ] || fail "npx mbguard check --all on examples/broken-bank exited $status, want 1 (findings): $out"
grep -q 'marker-unclosed' <<<"$out" || fail "no marker-unclosed finding from examples/broken-bank: $out"
echo "npm-test: broken-bank: exit 1 with findings, passed through the launcher"

mv "node_modules/$host" "$work/$host.away"
status=0
out=$(npx --no-install mbguard version 2>&1) || status=$?
[ "$status" = 2 ] || fail "without $host the launcher exited $status, want 2: $out"
grep -q "$host" <<<"$out" && grep -q 'npm install mbguard' <<<"$out" ||
  fail "without $host the launcher must name the package and the next step: $out"
echo "npm-test: without $host: $out"
echo "npm-test: passed"
