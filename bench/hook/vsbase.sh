#!/usr/bin/env bash
# The hook's hot path against the same hook at a base commit, interleaved in one run: PreToolUse
# of a plain code Edit and of a Bash call (and PostToolUse Bash), on a 10-file v7.1 bank with a
# secret-free bank. Prints each event's ratio new/base (a ratio near 1.0 means the change costs
# nothing there).
#   bash bench/hook/vsbase.sh [base-commit] [runs]      (defaults: d51822e, 60)
set -euo pipefail
cd "$(dirname "$0")/../.."
base="${1:-d51822e}"
runs="${2:-60}"
out="$PWD/bench/out/vsbase"
rm -rf "$out" && mkdir -p "$out/src"
git archive "$base" | tar -x -C "$out/src"
(cd "$out/src" && go build -o "$out/base" ./cmd/mbguard)
go build -o "$out/mbguard" ./cmd/mbguard
go build -o "$out/events" ./bench/hook/testdata/events

repo="$(mktemp -d)"
trap 'rm -rf "$repo"' EXIT
export HOME="$repo/.home" XDG_CONFIG_HOME="$repo/.home/.config" XDG_STATE_HOME="$repo/.home/.state" GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
mkdir -p "$HOME" "$repo/src"
git -C "$repo" init -q
git -C "$repo" config user.email bench@example.com
git -C "$repo" config user.name bench
(cd "$repo" && "$out/mbguard" init >/dev/null 2>&1)
for n in api auth deploy; do
  printf '# %s\n\nNotes about the %s: the token is read from the environment.\n' "$n" "$n" > "$repo/memory-bank/details/$n.md"
done
printf 'package src\n' > "$repo/src/app.go"
git -C "$repo" add -A && git -C "$repo" commit -qm bank

R="$repo" sid="bench-0000-0000" p="$out/payload"
mkdir -p "$p"
printf '%s' '{"hook_event_name":"UserPromptSubmit","session_id":"'$sid'","cwd":"'$R'","prompt":"go"}' > "$p/ups.json"
printf '%s' '{"hook_event_name":"PreToolUse","session_id":"'$sid'","cwd":"'$R'","tool_name":"Bash","tool_input":{"command":"ls -la"},"tool_use_id":"toolu_01"}' > "$p/prebash.json"
printf '%s' '{"hook_event_name":"PreToolUse","session_id":"'$sid'","cwd":"'$R'","tool_name":"Edit","tool_input":{"file_path":"'$R'/src/app.go","old_string":"package src","new_string":"package src // edited","replace_all":false},"tool_use_id":"toolu_02"}' > "$p/precode.json"
printf '%s' '{"hook_event_name":"PostToolUse","session_id":"'$sid'","cwd":"'$R'","tool_name":"Bash","tool_input":{"command":"ls -la"},"tool_response":{"stdout":"x","stderr":"","interrupted":false},"tool_use_id":"toolu_01"}' > "$p/postbash.json"
"$out/mbguard" hook claude < "$p/ups.json" >/dev/null

echo "this tree's hook against $base's (the baseline column), $runs runs each, interleaved:"
echo
"$out/events" -n "$runs" -dir "$repo" -hello "$out/base hook claude" -hook "$out/mbguard hook claude" \
  -worst 1.5 -plain-target 1.2 -plain "PreToolUse Bash,PreToolUse Edit of code" \
  "PreToolUse Bash=$p/prebash.json" \
  "PreToolUse Edit of code=$p/precode.json" \
  "PostToolUse Bash=$p/postbash.json"
echo "baseline: mbguard at $base; $(nproc) CPUs; load while measuring: $(cut -d' ' -f1-3 /proc/loadavg)"
