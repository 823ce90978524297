#!/usr/bin/env bash
# Hook latency benchmark: the wall time of `mbguard hook claude` answering one PreToolUse,
# against (a) the baseline, a hello-world Go program that reads and parses the same JSON, and
# (b) a binary that links mbguard's heavy dependencies (gitleaks, go-git, fsnotify, koanf,
# mvdan sh) and does the same nothing. Prints medians, the hook/hello-world ratio (target
# <= 2.0x on an idle machine), the linked package counts (go list -deps) and the median package
# initialisation per start (GODEBUG=inittrace=1) with the modules that cost the most.
#   bash bench/hook/run.sh [runs]      (default 200)
set -euo pipefail
cd "$(dirname "$0")/../.."
runs="${1:-200}"
out="$PWD/bench/out/hook"
mkdir -p "$out"
go build -o "$out/hello" ./bench/hook/testdata/hello
go build -o "$out/deps" ./bench/hook/testdata/deps
go build -o "$out/mbguard" ./cmd/mbguard
go build -o "$out/timer" ./bench/hook/testdata/timer
go build -o "$out/inittrace" ./bench/hook/testdata/inittrace
# counted now: the repository below gets a private HOME, where go would start a new module cache
counts=""
for p in hello:./bench/hook/testdata/hello deps:./bench/hook/testdata/deps mbguard:./cmd/mbguard; do
  counts+="$(printf '  %-8s %4d' "${p%%:*}" "$(go list -deps "${p#*:}" | wc -l)")"$'\n'
done

# a real repository with a memory bank and a session that has a current message
repo="$(mktemp -d)"
trap 'rm -rf "$repo"' EXIT
export HOME="$repo/.home" XDG_CONFIG_HOME="$repo/.home/.config" GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
mkdir -p "$HOME" "$repo/memory-bank/details" "$repo/src"
git -C "$repo" init -q
printf '# Memory\n<!-- MACHINE_BLOCK_START -->\n<!-- MEMORY_BANK_TEMPLATE:v7.1 -->\n<!-- MACHINE_BLOCK_END -->\n<!-- USER_BLOCK_START -->\n<!-- USER_BLOCK_END -->\n' > "$repo/memory-bank/MEMORY.md"
printf '# Patterns\n' > "$repo/memory-bank/details/patterns.md"
printf 'package src\n' > "$repo/src/app.go"
sid="bench-0000-0000"
printf '{"hook_event_name":"UserPromptSubmit","session_id":"%s","cwd":"%s","prompt":"go"}' "$sid" "$repo" | "$out/mbguard" hook claude >/dev/null
printf '{"hook_event_name":"PostToolUse","session_id":"%s","cwd":"%s","tool_name":"Read","tool_input":{"file_path":"%s/memory-bank/details/patterns.md"},"tool_response":{"file":{"filePath":"%s/memory-bank/details/patterns.md"}}}' "$sid" "$repo" "$repo" "$repo" | "$out/mbguard" hook claude >/dev/null
payload="$out/pretooluse.json"
printf '{"hook_event_name":"PreToolUse","session_id":"%s","cwd":"%s","transcript_path":"%s/t.jsonl","permission_mode":"acceptEdits","tool_name":"Edit","tool_input":{"file_path":"%s/src/app.go","old_string":"package src","new_string":"package src // edited","replace_all":false},"tool_use_id":"toolu_01"}' "$sid" "$repo" "$repo" "$repo" > "$payload"

echo "PreToolUse (Edit of a code file, context read), $runs runs each, interleaved:"
"$out/timer" -n "$runs" -stdin "$payload" -dir "$repo" \
  "hello (parse JSON)=$out/hello" \
  "deps (links gitleaks+go-git)=$out/deps" \
  "mbguard hook claude=$out/mbguard hook claude"
echo
echo "linked packages (go list -deps):"
printf '%s' "$counts"
echo
echo "package init per start (GODEBUG=inittrace=1):"
for b in hello deps mbguard; do
  args=(); [ "$b" = mbguard ] && args=(hook claude)
  printf '%s\n' "$b:"
  "$out/inittrace" -n 30 -top 6 -stdin "$payload" -dir "$repo" -- "$out/$b" "${args[@]}"
done
echo
echo "baseline: hello (a Go hello-world that parses the same JSON); target: hook/hello <= 2.0x on an idle machine"
echo "load while measuring: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime)"
