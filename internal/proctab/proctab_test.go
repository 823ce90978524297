package proctab

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
)

// The fallback every caller gets off Linux, tested on every system through the same methods.
func TestUnsupported(t *testing.T) {
	for name, tab := range map[string]Table{"Unsupported": Unsupported(), "zero": {}} {
		t.Run(name, func(t *testing.T) {
			if tab.Supported() {
				t.Fatal("Supported() = true")
			}
			if pids, ok := tab.PIDs(); ok || pids != nil {
				t.Errorf("PIDs() = %v, %v", pids, ok)
			}
			if _, ok := tab.Stat(os.Getpid()); ok {
				t.Error("Stat ok")
			}
			if _, ok := tab.Comm(os.Getpid()); ok {
				t.Error("Comm ok")
			}
			if _, ok := tab.Exe(os.Getpid()); ok {
				t.Error("Exe ok")
			}
			if _, ok := tab.Cmdline(os.Getpid()); ok {
				t.Error("Cmdline ok")
			}
			if tab.UptimeTicks() != 0 || tab.LastPID() != 0 {
				t.Error("UptimeTicks or LastPID not 0")
			}
			if fs := tab.OpenFiles(os.Getpid(), "/"); fs != nil {
				t.Errorf("OpenFiles = %v", fs)
			}
		})
	}
	if runtime.GOOS != "linux" && Local().Supported() {
		t.Errorf("Local() is supported on %s", runtime.GOOS)
	}
}

// The real table, read about this test process.
func TestLocal(t *testing.T) {
	tab := Local()
	if runtime.GOOS != "linux" {
		if tab.Supported() {
			t.Fatalf("Local() supported on %s", runtime.GOOS)
		}
		return // the fallback is TestUnsupported's
	}
	if !tab.Supported() {
		t.Fatal("/proc is not readable on Linux")
	}
	self := os.Getpid()
	pids, ok := tab.PIDs()
	if !ok || !slices.Contains(pids, self) {
		t.Fatalf("PIDs() = %d ids, %v: this process missing", len(pids), ok)
	}
	st, ok := tab.Stat(self)
	if !ok || st.PPID != os.Getppid() || st.State == 'Z' || st.Sid < 0 {
		t.Fatalf("Stat(self) = %+v, %v; parent %d", st, ok, os.Getppid())
	}
	if up := tab.UptimeTicks(); up == 0 || up+ClockTicks < st.Start {
		t.Errorf("UptimeTicks() = %d, before this process started (%d)", up, st.Start)
	}
	if tab.LastPID() <= 0 {
		t.Error("LastPID() = 0")
	}
	exe, _ := os.Executable()
	if got, ok := tab.Exe(self); !ok || got != exe {
		t.Errorf("Exe(self) = %q, %v; want %q", got, ok, exe)
	}
	if comm, ok := tab.Comm(self); !ok || comm == "" || len(comm) > 15 || filepath.Base(exe)[:len(comm)] != comm {
		t.Errorf("Comm(self) = %q, %v; executable %s", comm, ok, filepath.Base(exe))
	}
	if args, ok := tab.Cmdline(self); !ok || !slices.Equal(args, os.Args) {
		t.Errorf("Cmdline(self) = %q, %v; want %q", args, ok, os.Args)
	}
	dir := t.TempDir()
	w, err := os.Create(filepath.Join(dir, "w"))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := os.WriteFile(filepath.Join(dir, "r"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := os.Open(filepath.Join(dir, "r"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got := map[string]bool{}
	for _, f := range tab.OpenFiles(self, dir+"/") {
		got[filepath.Base(f.Path)] = f.Write
	}
	if w, ok := got["w"]; !ok || !w {
		t.Errorf("OpenFiles: the file open for writing = %v (present %v)", w, ok)
	}
	if w, ok := got["r"]; !ok || w {
		t.Errorf("OpenFiles: the file open for reading = write %v (present %v)", w, ok)
	}
	if _, ok := tab.Stat(-1); ok {
		t.Error("Stat(-1) ok")
	}
}

func TestParseStat(t *testing.T) {
	cases := map[string]struct {
		line string
		want Stat
		ok   bool
	}{
		"plain":                {"42 (bash) S 7 42 42 34816 42 4194560 1 2 3 4 5 6 7 8 20 0 1 0 98765 1 2", Stat{'S', 7, 42, 98765}, true},
		"name with parens":     {"9 (a) b) (c) Z 1 9 3 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 55 0 0", Stat{'Z', 1, 3, 55}, true},
		"name with spaces":     {"9 (tmux: server) R 1 9 9 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 7 0 0", Stat{'R', 1, 9, 7}, true},
		"truncated":            {"9 (x) S 1 2 3", Stat{}, false},
		"no parenthesis":       {"9 x S 1 9 9 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 7", Stat{}, false},
		"not a number":         {"9 (x) S p 9 9 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 7 0", Stat{}, false},
		"state not one letter": {"9 (x) SS 1 9 9 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 7 0", Stat{}, false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, ok := ParseStat([]byte(tc.line))
			if ok != tc.ok || got != tc.want {
				t.Errorf("ParseStat = %+v, %v; want %+v, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

func FuzzParseStat(f *testing.F) {
	f.Add([]byte("42 (bash) S 7 42 42 34816 42 4194560 1 2 3 4 5 6 7 8 20 0 1 0 98765 1 2"))
	f.Add([]byte("9 (a) b) (c) Z 1 9 3 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 55 0 0"))
	f.Add([]byte(")"))
	f.Fuzz(func(t *testing.T, b []byte) {
		st, ok := ParseStat(b)
		if !ok && st != (Stat{}) {
			t.Fatalf("not ok but %+v", st)
		}
	})
}
