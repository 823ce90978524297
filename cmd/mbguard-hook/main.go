// Command mbguard-hook answers agent hosts' hook calls: `mbguard-hook hook <host> [event]` is
// `mbguard hook <host> [event]`, started in a fraction of the time. A hook runs on every tool
// call of an agent, and most of mbguard's start-up is the package initialisation of gitleaks'
// and go-git's dependency trees, which a hook call rarely needs: this program links neither.
// Its secret scans (a bank file read or written, when the scan cache cannot answer) run in the
// mbguard installed beside it (scanner/remote), and so does every other command line, which
// it hands over whole.
package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"github.com/mbguard/mbguard/hooks"
	"github.com/mbguard/mbguard/internal/config"
	"github.com/mbguard/mbguard/internal/spawn"
	"github.com/mbguard/mbguard/outcome"
	"github.com/mbguard/mbguard/scanner/remote"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	full, missing := fullProgram()
	if !hookCall(args) {
		if missing != nil {
			fmt.Fprintf(os.Stderr, "mbguard-hook: %v (reinstall mbguard: mbguard-hook needs the mbguard it came with beside it)\n", missing)
			return 2
		}
		return handOver(full, args)
	}
	event := ""
	if len(args) == 3 {
		event = args[2]
	}
	remote.Use(full, missing)
	defer remote.Stop()
	outcome.Finisher = func(root string) error {
		if missing != nil {
			return missing
		}
		return spawn.Detached(full, root, "settle", root)
	}
	getenv := config.WithUserHome(os.Getenv)
	h := &hooks.Hook{Host: args[1], Event: event, Dir: ".", Getenv: getenv, Now: time.Now}
	reply := h.Run(context.Background(), payload(os.Stdin))
	os.Stdout.Write(reply.Stdout)
	fmt.Fprint(os.Stderr, reply.Stderr)
	if v := getenv("MBGUARD_DEBUG"); v != "" && v != "0" {
		switch {
		case reply.Decision != nil:
			fmt.Fprintf(os.Stderr, "mbguard: hook %s %s: %s %s\n", args[1], reply.Event, reply.Decision.Verdict, reply.Decision.Gate)
		case reply.Note != "":
			fmt.Fprintf(os.Stderr, "mbguard: hook %s %s: %s\n", args[1], reply.Event, reply.Note)
		}
	}
	return reply.Exit
}

// payload reads the hook's payload (at most one byte over hooks.MaxPayload: the hook then
// refuses it as too large) and, when it looks like a write into the bank, starts the secret
// engine beside the hook's work (remote.Prewarm): the new text is scanned, and the engine's
// start-up is most of what that scan costs. Reads of the bank are answered from the scan
// cache nearly always, so they do not start it early.
func payload(stdin io.Reader) io.Reader {
	b, err := io.ReadAll(io.LimitReader(stdin, hooks.MaxPayload+1))
	// Windows: a process start costs more there, and Go's limit on the handles a child
	// inherits is not honoured everywhere (Wine): the engine starts when a scan needs it
	if runtime.GOOS != "windows" && bytes.Contains(b, []byte("memory-bank")) && writesText(b) {
		remote.Prewarm()
	}
	if err != nil {
		return io.MultiReader(bytes.NewReader(b), errReader{err})
	}
	return bytes.NewReader(b)
}

// writeFields are what the hosts' write and edit tools name the text they write: content,
// new_string, new_str (new_str_1 …), newString, file_text, file_content, edits, a diff or an
// apply_patch body.
var writeFields = [][]byte{[]byte(`"content"`), []byte("new_str"), []byte("newString"), []byte("file_text"),
	[]byte("file_content"), []byte(`"edits"`), []byte(`"diff"`), []byte("Begin Patch")}

// writesText reports whether a payload may carry text a tool writes (a guess that only
// decides when the engine starts; the scan itself runs whenever the decision needs it).
func writesText(b []byte) bool {
	for _, f := range writeFields {
		if bytes.Contains(b, f) {
			return true
		}
	}
	return false
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// hookCall reports whether args are a hook call this program answers itself: `hook <host>
// [event]` for a host of the registry, without flags (-C, --set, -v are mbguard's to parse).
// mbguard words the usage error of anything else.
func hookCall(args []string) bool {
	if len(args) < 2 || len(args) > 3 || args[0] != "hook" {
		return false
	}
	if spec, ok := hooks.LookupHost(args[1]); !ok || !spec.HookHost() {
		return false
	}
	for _, a := range args[1:] {
		if strings.HasPrefix(a, "-") {
			return false
		}
	}
	return true
}

// fullProgram is the mbguard beside this program (mbguard.exe on Windows): the one it was
// released, packed and installed with.
func fullProgram() (string, error) { return spawn.Beside("mbguard") }

// handOver runs mbguard with args, on this program's stdin, stdout and stderr, and returns its
// exit code. Where the system can, mbguard replaces this process (same pid, the host's signals
// and timeouts reach it); elsewhere it runs as a child.
func handOver(full string, args []string) int {
	replace(full, args) // returns only where it could not
	cmd := exec.Command(full, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee) && ee.ExitCode() >= 0:
		return ee.ExitCode()
	default:
		fmt.Fprintf(os.Stderr, "mbguard-hook: running %s: %v (reinstall mbguard)\n", full, err)
		return 2
	}
}
