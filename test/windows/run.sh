#!/usr/bin/env bash
# Runs mbguard's tests as Windows programs under Wine on Linux (HOSTS.md §9), then drives
# mbguard.exe hook claude with Windows payloads (hook-claude.sh). Every Wine quirk is handled
# here, never in product code:
#   - Wine 8 has no bcryptprimitives.dll (ProcessPrng, loaded by every Go >= 1.22 program):
#     a one-function stand-in is built with mingw and copied into the prefix's system32;
#   - Wine 8 answers the POSIX delete os.RemoveAll uses with "Invalid function.": the TEST
#     binaries are built with an -overlay of internal/syscall/windows/at_windows.go that falls
#     back to the old delete on that answer (mbguard.exe itself is built as shipped);
#   - a Windows program cannot start Linux programs, so there is no git: only tests that need
#     no git (nor bash) run, selected below.
# Usage: test/windows/run.sh  (as root it installs Wine and mingw with apt-get when missing)
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
cache=${MBGUARD_WINE_CACHE:-$HOME/.cache/mbguard-ci/wine}
mkdir -p "$cache"
export WINEPREFIX=$cache/prefix WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="

wine=/usr/lib/wine/wine64
if [ ! -x "$wine" ] || ! command -v x86_64-w64-mingw32-gcc >/dev/null; then
	if [ "$(id -u)" = 0 ]; then
		DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends wine64 gcc-mingw-w64-x86-64-win32 >/dev/null
	else
		echo "test/windows/run.sh: Wine or mingw is missing; install them: sudo apt-get install -y --no-install-recommends wine64 gcc-mingw-w64-x86-64-win32" >&2
		exit 1
	fi
fi

# the prefix, once
if [ ! -f "$WINEPREFIX/system.reg" ]; then
	"$wine" wineboot --init >/dev/null 2>&1 || true
	/usr/lib/wine/wineserver -w || true
fi
dll=$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll
if [ ! -f "$dll" ] || [ test/windows/bcryptprimitives.c -nt "$dll" ]; then
	x86_64-w64-mingw32-gcc -shared -O2 -o "$cache/bcryptprimitives.dll" test/windows/bcryptprimitives.c -lbcrypt
	cp "$cache/bcryptprimitives.dll" "$dll"
fi

# the overlay for test binaries: whatever Wine answers the POSIX delete with ("Invalid
# function."), the fallback delete that Windows versions without POSIX deletes take is tried
goroot=$(go env GOROOT)
at=$goroot/src/internal/syscall/windows/at_windows.go
grep -q '^		return err.(NTStatus).Errno()$' "$at" || { echo "run.sh: $at changed; update the overlay" >&2; exit 1; }
sed 's/^		return err.(NTStatus).Errno()$/		return deleteatFallback(h)/' "$at" >"$cache/at_windows.go"
printf '{"Replace":{"%s":"%s"}}\n' "$at" "$cache/at_windows.go" >"$cache/overlay.json"

# -exec runner: the test binary runs as a Windows program; Wine's exit status is the test's
cat >"$cache/wine-exec" <<RUNNER
#!/bin/sh
exec "$wine" "\$@"
RUNNER
chmod +x "$cache/wine-exec"

export GOOS=windows GOARCH=amd64 CGO_ENABLED=0
# CI=true makes a missing tool a failure (internal/testhost): the selection below needs none
gotest() { go test -overlay "$cache/overlay.json" -exec "$cache/wine-exec" -count=1 "$@"; }
status=0
# whole packages that need neither git nor a Unix tool, but the table rows that run the real
# go, gofmt, npm, cargo and pip: a Windows program cannot start those Linux tools here
gotest ./gating/ ./gating/shell/ ./bank/ ./internal/flock/ -skip '^(TestTablesReallyWrite|TestTableRowsThroughBothProtocols)$' || status=1
# the path model's adapter, without the git-backed tests (and without TestResolve: symlinks
# under Wine report success and create nothing)
gotest ./watcher/ -run 'TestDriveLetterCase|TestCutRoot' || status=1
gotest ./internal/gitexec/ -run 'TestGitNotFound' || status=1

unset GOOS GOARCH
test/windows/hook-claude.sh || status=1
exit $status
