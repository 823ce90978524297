// Package archtest holds tests about the shape of the module itself: the floors of STYLE.md
// (nothing imports upward) and the single main package that `go install ./...` must yield.
package archtest
