package outcome

import (
	"fmt"
	"testing"

	"github.com/mbguard/mbguard/internal/testgit"
)

// BenchmarkWalk is the floor of one check: lstat every entry of a 200-file bank.
func BenchmarkWalk(b *testing.B) {
	dir := b.TempDir()
	testgit.Write(b, dir, "memory-bank/MEMORY.md", goodMemory)
	for i := 1; i < 200; i++ {
		testgit.Write(b, dir, fmt.Sprintf("memory-bank/details/d%02d/f%04d.md", i%20, i), "x\n")
	}
	for b.Loop() {
		if _, err := walk(dir, "memory-bank"); err != nil {
			b.Fatal(err)
		}
	}
}
