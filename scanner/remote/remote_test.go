package remote_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mbguard/mbguard/internal/testgit"
	"github.com/mbguard/mbguard/scanner"
	"github.com/mbguard/mbguard/scanner/remote"
)

// The test binary is its own engine process: started as `<test binary> scan-engine` with
// REMOTE_TEST_ENGINE set, it serves (gitleaks linked through engine_test.go) or dies at once.
func TestMain(m *testing.M) {
	if len(os.Args) == 2 && os.Args[1] == "scan-engine" {
		switch os.Getenv("REMOTE_TEST_ENGINE") {
		case "serve":
			if err := remote.Serve(os.Stdin, os.Stdout); err != nil {
				os.Stderr.WriteString(err.Error() + "\n")
				os.Exit(1)
			}
			os.Exit(0)
		case "die":
			os.Exit(0)
		case "hang": // takes a request, says so in REMOTE_TEST_MARK, and never answers
			b := make([]byte, 1)
			if _, err := os.Stdin.Read(b); err == nil {
				_ = os.WriteFile(os.Getenv("REMOTE_TEST_MARK"), nil, 0o644)
			}
			_, _ = io.Copy(io.Discard, os.Stdin)
			os.Exit(0)
		}
	}
	os.Exit(m.Run())
}

func self(t *testing.T) string {
	t.Helper()
	p, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// A scan through the engine process finds what gitleaks finds, redacts nothing itself, and
// reports a broken .gitleaks.toml as the engine in this process would.
func TestScansRunInTheEngineProcess(t *testing.T) {
	t.Setenv("REMOTE_TEST_ENGINE", "serve")
	remote.Use(self(t), nil)
	remote.Prewarm() // started in the background; the first scan waits for it
	remote.Prewarm() // and only once
	token := testgit.FakeGitHubToken(t)
	root := t.TempDir()
	s := scanner.NewSecrets(root)
	if err := s.Ready(); err != nil {
		t.Fatalf("Ready: %v", err)
	}
	content := []byte("# notes\n\nthe deploy key is " + token + "\n")
	got, err := s.Scan("memory-bank/tech.md", content)
	if err != nil {
		t.Fatalf("Scan: %v", err)
	}
	want := []scanner.SecretFinding{{Rule: "github-pat", Line: 3, Start: strings.Index(string(content), token), End: strings.Index(string(content), token) + len(token)}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Scan found %+v, want %+v", got, want)
	}
	if got, err := s.Scan("memory-bank/tech.md", []byte("# notes\n\nplain prose\n")); err != nil || len(got) != 0 {
		t.Errorf("Scan of prose: %+v, %v; want nothing", got, err)
	}
	if got, err := s.Scan("memory-bank/empty.md", nil); err != nil || len(got) != 0 {
		t.Errorf("Scan of nothing: %+v, %v; want nothing", got, err)
	}

	broken := t.TempDir()
	if err := os.WriteFile(filepath.Join(broken, scanner.GitleaksConfig), []byte("[[rules]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	b := scanner.NewSecrets(broken)
	if err := b.Ready(); err == nil || !strings.Contains(err.Error(), scanner.GitleaksConfig) {
		t.Errorf("Ready with a broken %s: %v, want an error naming it", scanner.GitleaksConfig, err)
	}
	if _, err := b.Scan("memory-bank/tech.md", content); err == nil {
		t.Error("Scan with a broken config: no error")
	}
	// The broken repository leaves the process serving the others.
	if got, err := s.Scan("memory-bank/tech.md", content); err != nil || len(got) != 1 {
		t.Errorf("Scan after another repository's error: %+v, %v", got, err)
	}
	// Stopped (the hook answered), it scans no more: a scan then fails, never "no secrets".
	remote.Stop()
	remote.Stop()
	if _, err := s.Scan("memory-bank/tech.md", content); err == nil || !strings.Contains(err.Error(), "stopped") {
		t.Errorf("Scan after Stop: %v, want an error", err)
	}
}

// Without the engine program every scan fails (the hook then refuses what needed one), naming
// why and the next step; an engine that dies fails the scan too, never a silent "no secrets".
func TestScansFailClosed(t *testing.T) {
	remote.Use("", errors.New("no mbguard beside mbguard-hook"))
	_, err := scanner.NewSecrets(t.TempDir()).Scan("memory-bank/a.md", []byte("x\n"))
	if err == nil || !strings.Contains(err.Error(), "no mbguard beside") || !strings.Contains(err.Error(), "reinstall mbguard") {
		t.Errorf("Scan without the engine program: %v, want the reason and the reinstall", err)
	}

	remote.Use(filepath.Join(t.TempDir(), "no-such-program"), nil)
	if _, err := scanner.NewSecrets(t.TempDir()).Scan("memory-bank/a.md", []byte("x\n")); err == nil || !strings.Contains(err.Error(), "reinstall mbguard") {
		t.Errorf("Scan with an engine program that cannot start: %v, want the reinstall", err)
	}

	t.Setenv("REMOTE_TEST_ENGINE", "die")
	remote.Use(self(t), nil)
	s := scanner.NewSecrets(t.TempDir())
	for i := range 2 {
		if _, err := s.Scan("memory-bank/a.md", []byte("x\n")); err == nil || !strings.Contains(err.Error(), "stopped") {
			t.Errorf("scan %d with an engine that died: %v, want it stopped", i+1, err)
		}
	}
}

// Stop does not wait for a scan under way (the hook answered before the host's timeout and
// must exit): the engine is killed and the scan ends with an error.
func TestStopEndsAScanUnderWay(t *testing.T) {
	t.Setenv("REMOTE_TEST_ENGINE", "hang")
	mark := filepath.Join(t.TempDir(), "asked")
	t.Setenv("REMOTE_TEST_MARK", mark)
	remote.Use(self(t), nil)
	s := scanner.NewSecrets(t.TempDir())
	done := make(chan error, 1)
	go func() {
		_, err := s.Scan("memory-bank/a.md", []byte("x\n"))
		done <- err
	}()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(mark); err == nil {
			break // the engine holds the request
		}
		if time.Now().After(deadline) {
			t.Fatal("the engine never got the request")
		}
	}
	stopped := make(chan struct{})
	go func() {
		remote.Stop()
		close(stopped)
	}()
	select {
	case <-stopped:
	case <-time.After(time.Minute): // a bound for a hang, not a timing
		t.Fatal("Stop waited for the scan under way")
	}
	select {
	case err := <-done:
		if err == nil {
			t.Error("a scan cut short by Stop reported no error")
		}
	case <-time.After(time.Minute): // a bound for a hang, not a timing
		t.Fatal("the scan under way did not end after Stop")
	}
}
