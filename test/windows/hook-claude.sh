#!/usr/bin/env bash
# Drives mbguard.exe hook claude, and mbguard-hook.exe hook claude (what install writes into
# the hosts' settings), as Claude Code on Windows would, under Wine (run.sh sets the prefix up): PreToolUse payloads with the repository spelt with a drive letter in both cases,
# the PowerShell tool, and Git Bash commands with drive, MSYS and \\?\ paths. Each bank write
# must be refused before it runs; each read and each allowed write must pass.
set -euo pipefail
cd "$(dirname "$0")/../.."
cache=${MBGUARD_WINE_CACHE:-$HOME/.cache/mbguard-ci/wine}
export WINEPREFIX=$cache/prefix WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
wine=/usr/lib/wine/wine64

GOOS=windows GOARCH=amd64 CGO_ENABLED=0 go build -o "$cache/" ./cmd/mbguard ./cmd/mbguard-hook
work=$(mktemp -d "$cache/e2e.XXXXXX")
trap 'rm -rf "$work"' EXIT
repo=$work/repo
mkdir -p "$repo/memory-bank/details"
git -c init.defaultBranch=main init -q "$repo"
cat >"$repo/memory-bank/MEMORY.md" <<'MD'
# Project memory
<!-- MACHINE_BLOCK_START -->
<!-- MEMORY_BANK_TEMPLATE:v7.1 -->
## Current Focus
- ship the payment retry queue
<!-- MACHINE_BLOCK_END -->
<!-- USER_BLOCK_START -->
my own notes
<!-- USER_BLOCK_END -->
MD
printf '# Patterns\n' >"$repo/memory-bank/details/patterns.md"

# Z: is the Linux root under Wine; the same folder in both cases of the drive letter
win=$(printf 'Z:%s' "$repo" | tr / '\\')
lower=z${win:1}
fwd=$(printf 'Z:%s' "$repo")
msys=/z$repo

json() { python3 -c 'import json,sys; print(json.dumps(sys.argv[1]))' "$1"; }
fail=0
# case EXPECT CWD TOOL INPUT-JSON: EXPECT is deny or allow, from both programs
hook() {
	local expect=$1 cwd=$2 tool=$3 input=$4 out rc prog
	local payload="{\"hook_event_name\":\"PreToolUse\",\"session_id\":\"11111111-2222-3333-4444-555555555555\",\"cwd\":$(json "$cwd"),\"tool_name\":\"$tool\",\"tool_input\":$input,\"tool_use_id\":\"t$RANDOM\"}"
	for prog in mbguard mbguard-hook; do
		set +e
		out=$(cd "$repo" && printf '%s' "$payload" | MEMORY_BANK_GUARD_MODE=off "$wine" "$cache/$prog.exe" hook claude 2>&1)
		rc=$?
		set -e
		local got=allow
		if [ $rc -ne 0 ] || printf '%s' "$out" | grep -q '"permissionDecision": *"deny"'; then
			got=deny
		fi
		if [ "$got" != "$expect" ]; then
			fail=1
			printf 'FAIL %s %s (want %s, got %s, exit %d) in %s: %s\n%s\n' "$prog" "$tool" "$expect" "$got" "$rc" "$cwd" "$input" "$out"
		else
			printf 'ok   %-12s %-5s %-10s %s\n' "$prog" "$got" "$tool" "$input"
		fi
	done
}

for cwd in "$win" "$lower"; do
	# write tools: a .md file stands (point 2: a lower-case drive is no symlink escape), others are refused
	hook allow "$cwd" Write "{\"file_path\":$(json "$lower\\memory-bank\\details\\ok.md"),\"content\":\"# ok\\n\"}"
	hook allow "$cwd" Write "{\"file_path\":$(json "memory-bank\\details\\rel.md"),\"content\":\"# rel\\n\"}"
	hook deny "$cwd" Write "{\"file_path\":$(json "$win\\memory-bank\\a.json"),\"content\":\"{}\"}"
	hook deny "$cwd" Write "{\"file_path\":$(json "$lower\\memory-bank.\\a.json"),\"content\":\"{}\"}"
	# Git Bash
	hook deny "$cwd" Bash "{\"command\":$(json "echo x > $fwd/memory-bank/a.json")}"
	hook deny "$cwd" Bash "{\"command\":$(json "echo x > '$win\\memory-bank\\a.json'")}"
	hook deny "$cwd" Bash "{\"command\":$(json "echo x > $msys/memory-bank/a.json")}"
	hook deny "$cwd" Bash "{\"command\":$(json "echo x > '\\\\?\\$win\\memory-bank\\a.json'")}"
	hook allow "$cwd" Bash "{\"command\":$(json "cat $fwd/memory-bank/details/patterns.md")}"
	# PowerShell
	hook deny "$cwd" PowerShell "{\"command\":$(json "Set-Content -Path memory-bank\\a.json -Value x")}"
	hook deny "$cwd" PowerShell "{\"command\":$(json "'x' | Out-File $lower\\memory-bank\\notes.txt")}"
	hook deny "$cwd" PowerShell "{\"command\":$(json "Remove-Item -Recurse -Force memory-bank")}"
	hook deny "$cwd" PowerShell "{\"command\":$(json "[IO.File]::WriteAllText('$win\\memory-bank\\MEMORY.md', 'x')")}"
	hook deny "$cwd" PowerShell "{\"command\":$(json "ni memory-bank\\details\\x.json")}"
	hook allow "$cwd" PowerShell "{\"command\":$(json "Get-Content memory-bank\\MEMORY.md | Select-Object -First 5")}"
	hook allow "$cwd" PowerShell "{\"command\":$(json "Select-String -Path $lower\\memory-bank\\details\\patterns.md -Pattern queue")}"
	hook allow "$cwd" PowerShell "{\"command\":$(json "Get-ChildItem $win")}"
done

# Point 1 of issue #31: an allowed write spelt in another case than the file on disk stands
# after the check that follows the call (the record and the listing are compared folded).
sid=22222222-3333-4444-5555-666666666666
session() { # EVENT TOOL INPUT-JSON ID [RESPONSE]
	local p="{\"hook_event_name\":\"$1\",\"session_id\":\"$sid\",\"cwd\":$(json "$lower"),\"tool_name\":\"$2\",\"tool_input\":$3,\"tool_use_id\":\"$4\"${5:+,\"tool_response\":$5}}"
	(cd "$repo" && printf '%s' "$p" | "$wine" "$cache/mbguard-hook.exe" hook claude >/dev/null 2>&1)
}
stands() { # NAME FILE TEXT
	if grep -qF "$3" "$2" && [ -z "$(ls -A "$repo/.git/mbguard/quarantine" 2>/dev/null)" ]; then
		printf 'ok   stands    %s\n' "$1"
	else
		fail=1
		printf 'FAIL %s: undone after the call (%s)\n' "$1" "$(ls -A "$repo/.git/mbguard/quarantine" 2>/dev/null | tr '\n' ' ')"
	fi
}
session SessionStart "" '{}' s0 || true
edit="{\"file_path\":$(json "$lower\\memory-bank\\memory.md"),\"old_string\":\"- ship the payment retry queue\",\"new_string\":\"- ship the retry queue v2\"}"
session PreToolUse Read "{\"file_path\":$(json "$lower\\memory-bank\\memory.md")}" r1 || true
session PostToolUse Read "{\"file_path\":$(json "$lower\\memory-bank\\memory.md")}" r1 '{}' || true
session PreToolUse Edit "$edit" e1 || true
sed -i 's/^- ship the payment retry queue$/- ship the retry queue v2/' "$repo/memory-bank/MEMORY.md"
session PostToolUse Edit "$edit" e1 '{}' || true
stands "Edit of MEMORY.md spelt memory.md" "$repo/memory-bank/MEMORY.md" "retry queue v2"
mkdir -p "$repo/memory-bank/details/requirements"
write="{\"file_path\":$(json "$lower\\memory-bank\\Details\\Requirements\\REQ-002-signup.md"),\"content\":\"# REQ-002 signup\\n\"}"
session PreToolUse Write "$write" w1 || true
printf '# REQ-002 signup\n' >"$repo/memory-bank/details/requirements/REQ-002-signup.md"
session PostToolUse Write "$write" w1 '{}' || true
stands "new REQ-002-signup.md under Details\\Requirements" "$repo/memory-bank/details/requirements/REQ-002-signup.md" "REQ-002 signup"

# Point 5: from PowerShell or cmd there is no HOME; the user folder is %USERPROFILE% (Wine sets
# it). A project install is then found once, and --global installs into the profile.
doctor=$(cd "$repo" && env -u HOME "$wine" "$cache/mbguard.exe" install --agent claude >/dev/null 2>&1 && env -u HOME "$wine" "$cache/mbguard.exe" doctor 2>&1 || true)
if printf '%s' "$doctor" | grep -q 'runs twice\|every hook runs twice' || ! printf '%s' "$doctor" | grep -q '^OK    claude'; then
	fail=1
	printf 'FAIL doctor without HOME:\n%s\n' "$doctor"
else
	echo "ok   doctor without HOME finds the project's hooks once"
fi
if out=$(cd "$repo" && env -u HOME "$wine" "$cache/mbguard.exe" install --agent claude --global 2>&1); then
	echo "ok   install --global without HOME (into %USERPROFILE%)"
	(cd "$repo" && env -u HOME "$wine" "$cache/mbguard.exe" install --agent claude --global --uninstall >/dev/null 2>&1) || true
else
	fail=1
	printf 'FAIL install --global without HOME:\n%s\n' "$out"
fi
exit $fail
