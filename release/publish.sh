#!/usr/bin/env bash
# Publishes a release that go run -tags release ./release built at a v* tag: the archives and the checksums
# file as a GitHub release (notes: the tag's CHANGELOG.md section), then the npm packages, the
# six platform packages before mbguard, whose optionalDependencies name them.
# Run by the release workflow on the tag, with GH_TOKEN and npm credentials (NODE_AUTH_TOKEN or
# trusted publishing) in the environment. --dry-run prints the gh command and runs
# npm publish --dry-run.
#
# Usage: release/publish.sh [--dry-run] [dist]
set -euo pipefail
cd "$(dirname "$0")/.."
dry=
if [ "${1:-}" = --dry-run ]; then
  dry=1
  shift
fi
dist=${1:-dist}

sums=$(ls "$dist"/mbguard_*_checksums.txt 2>/dev/null || true)
[ -n "$sums" ] || {
  echo "publish: no checksums file in $dist: build the release first (go run -tags release ./release at a v* tag)" >&2
  exit 1
}
version=v$(basename "$sums" | sed 's/^mbguard_//; s/_checksums\.txt$//')
case "$version" in
*-snapshot-*)
  echo "publish: $version is a snapshot; publish only what go run -tags release ./release built at a v* tag" >&2
  exit 1
  ;;
esac
count=$(awk 'END {print NR}' "$sums")
[ "$count" = 6 ] || {
  echo "publish: $sums lists $count archives, a release has 6: rebuild with go run -tags release ./release --clean" >&2
  exit 1
}
(cd "$dist" && sha256sum -c --quiet "$(basename "$sums")") || {
  echo "publish: an archive in $dist no longer matches $sums: rebuild with go run -tags release ./release --clean" >&2
  exit 1
}

notes=$(mktemp)
trap 'rm -f "$notes"' EXIT
# The section under "## [0.1.0]" up to the next "## [" heading.
awk -v h="## [${version#v}]" 'index($0, h) == 1 {on = 1; next} on && /^## \[/ {exit} on {print}' CHANGELOG.md >"$notes"
[ -s "$notes" ] || {
  echo "publish: CHANGELOG.md has no \"## [${version#v}]\" section: add it, commit, tag again" >&2
  exit 1
}

files=("$sums")
while read -r _ name; do files+=("$dist/$name"); done <"$sums"
if [ -n "$dry" ]; then
  echo "publish: would run: gh release create $version --title $version --notes-file <CHANGELOG section> ${files[*]}"
else
  gh release create "$version" --verify-tag --title "$version" --notes-file "$notes" "${files[@]}"
fi

tag=latest
case "$version" in *-*) tag=next ;; esac # npm refuses a prerelease without a tag other than latest
for pkg in "$dist"/npm/mbguard-*/ "$dist/npm/mbguard/"; do
  npm publish ${dry:+--dry-run} --access public --tag "$tag" "$pkg"
done
