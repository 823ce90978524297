package declog

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
)

func TestAppendConcurrentAndRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", FileName)
	var wg sync.WaitGroup
	for i := 0; i < 40; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := Append(path, Entry{Session: "s", Verdict: "block", Message: string(make([]byte, 2000))}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	// a torn last line (a crash mid-write) is counted, not fatal
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"verdict":"bl`)
	f.Close()
	es, bad, err := Read(path, 0)
	if err != nil || len(es) != 40 || bad != 1 {
		t.Fatalf("read %d entries, %d bad, err %v; want 40, 1", len(es), bad, err)
	}
	if last, _, _ := Read(path, 5); len(last) != 5 {
		t.Fatalf("limit 5 gave %d", len(last))
	}
	if es, _, err := Read(filepath.Join(t.TempDir(), "none"), 0); err != nil || es != nil {
		t.Fatalf("missing log: %v %v", es, err)
	}
}
