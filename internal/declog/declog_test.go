package declog

import (
	"os"
	"path/filepath"
	"strings"
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

// A line longer than any buffer (written by something other than mbguard) is skipped and
// counted; the entries around it are still read.
func TestReadOversizeLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	Append(path, Entry{Verdict: "block", Message: "before"})
	for _, n := range []int{70 << 10, 3 << 20} {
		f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		f.WriteString(`{"verdict":"warn","message":"` + strings.Repeat("x", n) + "\"}\n")
		f.Close()
	}
	Append(path, Entry{Verdict: "block", Message: "after"})
	es, bad, err := Read(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 3 || bad != 1 || es[0].Message != "before" || len(es[1].Message) != 70<<10 || es[2].Message != "after" {
		t.Fatalf("got %d entries, %d bad; want before, the 70 KiB line, after and 1 bad", len(es), bad)
	}
}
