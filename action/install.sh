#!/usr/bin/env bash
# The GitHub Action's install step (action.yml): put mbguard on PATH for the check step.
#   - A release (version v1.2.3, or empty while the action itself is used at a v* tag):
#     download its archive for the runner's OS and CPU and its checksums file, verify the
#     SHA-256, unpack the binary into $RUNNER_TEMP and add that folder to $GITHUB_PATH.
#     Seconds, and the bytes are the ones the release published.
#   - Anything else (main, a branch, a commit): write method=go to $GITHUB_OUTPUT; action.yml
#     then sets up Go and runs go install …@<ref> (minutes of compiling).
# Inputs come as environment variables: MBGUARD_VERSION (the version input), MBGUARD_ACTION_REF
# and MBGUARD_ACTION_PATH (github.action_ref and github.action_path), MBGUARD_DOWNLOAD_URL (where
# releases live; tests point it at file://).
set -euo pipefail

semver='^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?$'
base="${MBGUARD_DOWNLOAD_URL:-https://github.com/mbguard/mbguard/releases/download}"
version="${MBGUARD_VERSION:-}"
if [ -z "$version" ]; then
  # github.action_ref can be empty in a composite action (actions/runner#2473); the folder the
  # runner checked the action out to ends with the same ref (…/_actions/mbguard/mbguard/v0.1.0).
  version="${MBGUARD_ACTION_REF:-}"
  [ -n "$version" ] || version=$(basename "${MBGUARD_ACTION_PATH:-main}")
  [[ "$version" =~ $semver ]] || version=main
fi
[[ ! "v$version" =~ $semver ]] || version="v$version" # 0.1.0 means v0.1.0
out="${GITHUB_OUTPUT:-/dev/null}"
error() {
  echo "::error title=mbguard::$*"
  exit 1
}

if ! [[ "$version" =~ $semver ]]; then
  echo "mbguard: $version is no release tag; installing it with go install"
  { echo "method=go"; echo "ref=$version"; } >>"$out"
  exit 0
fi

os="${RUNNER_OS:-$(uname -s)}"
arch="${RUNNER_ARCH:-$(uname -m)}"
case "$os" in
Linux) goos=linux ;;
macOS | Darwin) goos=darwin ;;
Windows | MINGW* | MSYS* | CYGWIN*) goos=windows ;;
*) error "no mbguard release for the runner OS $os; set the action's version input to main to build it with go install" ;;
esac
case "$arch" in
X64 | x86_64 | amd64) goarch=amd64 ;;
ARM64 | aarch64 | arm64) goarch=arm64 ;;
*) error "no mbguard release for the runner CPU $arch; set the action's version input to main to build it with go install" ;;
esac
plain="${version#v}"
archive="mbguard_${plain}_${goos}_${goarch}.tar.gz"
[ "$goos" != windows ] || archive="mbguard_${plain}_${goos}_${goarch}.zip"
sums="mbguard_${plain}_checksums.txt"

dest="${RUNNER_TEMP:-$(mktemp -d)}/mbguard-$version"
rm -rf "$dest"
mkdir -p "$dest/download" "$dest/bin"
for f in "$sums" "$archive"; do
  curl -fsSL --retry 3 -o "$dest/download/$f" "$base/$version/$f" ||
    error "cannot download $base/$version/$f; check that release $version exists (https://github.com/mbguard/mbguard/releases)"
done

want=$(awk -v f="$archive" '$2 == f || $2 == "*" f {print $1}' "$dest/download/$sums")
[ -n "$want" ] || error "$sums lists no $archive; pick another version or use version: main"
if command -v sha256sum >/dev/null 2>&1; then
  got=$(sha256sum "$dest/download/$archive" | awk '{print $1}')
else
  got=$(shasum -a 256 "$dest/download/$archive" | awk '{print $1}')
fi
if [ "$got" != "$want" ]; then
  error "the SHA-256 of $archive is $got, but $sums says $want: the download is damaged or not the release's; re-run the job, and report it if it persists"
fi

case "$archive" in
*.zip)
  if command -v unzip >/dev/null 2>&1; then
    unzip -q -o "$dest/download/$archive" -d "$dest/bin"
  else
    7z x -y -o"$dest/bin" "$dest/download/$archive" >/dev/null
  fi
  ;;
*) tar -xzf "$dest/download/$archive" -C "$dest/bin" ;;
esac
rm -rf "$dest/download"
echo "$dest/bin" >>"${GITHUB_PATH:-/dev/null}"
{ echo "method=release"; echo "path=$dest/bin"; } >>"$out"
exe=
[ "$goos" != windows ] || exe=.exe
"$dest/bin/mbguard$exe" version
