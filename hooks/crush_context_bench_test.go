package hooks

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mbguard/mbguard/internal/repo"
)

// BenchmarkCrushContextRefresh is what every Crush hook call adds when MEMORY.md did not change
// (read the bank folder, stat MEMORY.md, compare the stamp), next to the named baseline
// "stat": one os.Stat of MEMORY.md, run in the same invocation. Compare the two ns/op.
func BenchmarkCrushContextRefresh(b *testing.B) {
	root := bankRepo(b)
	r, err := repo.Find(root)
	if err != nil {
		b.Fatal(err)
	}
	if err := refreshCrushContext(r, nil); err != nil {
		b.Fatal(err)
	}
	mem := filepath.Join(root, "memory-bank", "MEMORY.md")
	b.Run("stat", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := os.Stat(mem); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("refresh", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if err := refreshCrushContext(r, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}
