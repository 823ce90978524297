#!/usr/bin/env bash
# Every hook event one Claude Code session sends, timed against a hello-world Go program that
# reads the same JSON, in the same run (interleaved), on a 10-file v7.1 bank: SessionStart,
# UserPromptSubmit, PreToolUse Bash, PreToolUse Edit of code, PreToolUse Edit of a bank .md,
# PostToolUse Bash and PostToolUse after a bank write. Prints a Markdown table, the worst ratio
# (target <= 3.0x on an idle machine) and the plain PreToolUse ratio (target <= 2.0x).
# SessionStart is measured as sessions after the first meet it: MEMORY.md's secret scan is
# then cached under the git dir. The hook is mbguard-hook, what install writes into the hosts'
# settings; MBGUARD_BENCH_HOOK=mbguard times `mbguard hook claude` instead.
#   bash bench/hook/events.sh [runs]      (default 60)
set -euo pipefail
cd "$(dirname "$0")/../.."
runs="${1:-60}"
out="$PWD/bench/out/hook"
mkdir -p "$out"
go build -o "$out/hello" ./bench/hook/testdata/hello
go build -o "$out/" ./cmd/mbguard ./cmd/mbguard-hook
go build -o "$out/events" ./bench/hook/testdata/events
hook="$out/${MBGUARD_BENCH_HOOK:-mbguard-hook}"

repo="$(mktemp -d)"
trap 'rm -rf "$repo"' EXIT
export HOME="$repo/.home" XDG_CONFIG_HOME="$repo/.home/.config" GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
mkdir -p "$HOME" "$repo/src"
git -C "$repo" init -q
git -C "$repo" config user.email bench@example.com
git -C "$repo" config user.name bench
(cd "$repo" && "$out/mbguard" init >/dev/null 2>&1)
for n in api auth deploy; do
  printf '# %s\n\nNotes about the %s: the token is read from the environment; key rotation happens weekly.\nSee [patterns](patterns.md).\n' "$n" "$n" > "$repo/memory-bank/details/$n.md"
done
printf 'package src\n' > "$repo/src/app.go"
git -C "$repo" add -A && git -C "$repo" commit -qm bank
files=$(find "$repo/memory-bank" -type f | wc -l)

R="$repo" sid="bench-0000-0000" p="$out/payload"
mkdir -p "$p"
edit='"tool_name":"Edit","tool_input":{"file_path":"'$R'/memory-bank/details/api.md","old_string":"key rotation happens weekly","new_string":"key rotation happens monthly","replace_all":false},"tool_use_id":"toolu_03"'
printf '%s' '{"hook_event_name":"SessionStart","session_id":"'$sid'","cwd":"'$R'","source":"startup"}' > "$p/ss.json"
printf '%s' '{"hook_event_name":"UserPromptSubmit","session_id":"'$sid'","cwd":"'$R'","prompt":"go"}' > "$p/ups.json"
printf '%s' '{"hook_event_name":"PreToolUse","session_id":"'$sid'","cwd":"'$R'","tool_name":"Bash","tool_input":{"command":"ls -la"},"tool_use_id":"toolu_01"}' > "$p/prebash.json"
printf '%s' '{"hook_event_name":"PreToolUse","session_id":"'$sid'","cwd":"'$R'","tool_name":"Edit","tool_input":{"file_path":"'$R'/src/app.go","old_string":"package src","new_string":"package src // edited","replace_all":false},"tool_use_id":"toolu_02"}' > "$p/precode.json"
printf '%s' '{"hook_event_name":"PreToolUse","session_id":"'$sid'","cwd":"'$R'",'"$edit"'}' > "$p/premd.json"
printf '%s' '{"hook_event_name":"PostToolUse","session_id":"'$sid'","cwd":"'$R'","tool_name":"Bash","tool_input":{"command":"ls -la"},"tool_response":{"stdout":"x","stderr":"","interrupted":false},"tool_use_id":"toolu_01"}' > "$p/postbash.json"
printf '%s' '{"hook_event_name":"PostToolUse","session_id":"'$sid'","cwd":"'$R'",'"$edit"',"tool_response":{"filePath":"'$R'/memory-bank/details/api.md"}}' > "$p/postmd.json"
# the session as the host drives it: started, a prompt, the bank edit written to disk
for e in ss ups premd; do "$hook" hook claude < "$p/$e.json" >/dev/null; done
sed -i 's/happens weekly/happens monthly/' "$repo/memory-bank/details/api.md"
"$hook" hook claude < "$p/postmd.json" >/dev/null

echo "$(basename "$hook") hook claude: events on a $files-file v7.1 bank, each against hello-world in the same run ($runs runs each):"
echo
"$out/events" -n "$runs" -dir "$repo" -hello "$out/hello" -hook "$hook hook claude" \
  -plain "PreToolUse Bash,PreToolUse Edit of code" \
  "SessionStart=$p/ss.json" \
  "UserPromptSubmit=$p/ups.json" \
  "PreToolUse Bash=$p/prebash.json" \
  "PreToolUse Edit of code=$p/precode.json" \
  "PreToolUse Edit of a bank .md=$p/premd.json" \
  "PostToolUse Bash=$p/postbash.json" \
  "PostToolUse after a bank write=$p/postmd.json"
echo "baseline: hello (a Go hello-world that parses the same JSON); $(nproc) CPUs; load while measuring: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime)"
