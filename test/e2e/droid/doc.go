// Package droid drives the real Factory Droid CLI (@factory/cli-linux-x64, pinned in
// test/hosts) headless with `droid exec` against the shared fake model as a BYOK custom model,
// with mbguard's hooks written by `mbguard install --agent droid`.
package droid
