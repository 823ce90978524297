// Package remote is the secret engine of mbguard-hook: the scans run in the full mbguard
// beside it (`mbguard scan-engine`), started on the first scan of a hook call and ended with
// it. gitleaks' package initialisation alone costs more than the rest of a hook call, and most
// calls scan nothing (or answer from the scan cache), so the hook binary does not link it.
//
// The wire is one JSON object per line each way: a Request, then its Reply.
package remote

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"

	"github.com/mbguard/mbguard/scanner"
)

// Request asks the engine process to check a repository's rules (Content nil and Ready set)
// or to scan content that would be stored at Path.
type Request struct {
	Root    string `json:"root"`
	Ready   bool   `json:"ready,omitempty"`
	Path    string `json:"path,omitempty"`
	Content []byte `json:"content,omitempty"`
}

// Reply is the engine's answer: the findings, or the error the scan returned.
type Reply struct {
	Findings []scanner.SecretFinding `json:"findings,omitempty"`
	Error    string                  `json:"error,omitempty"`
}

// Use makes this program's scans run in program (the full mbguard), started with the
// arguments `scan-engine` on the first scan. A non-nil missing says why there is no such
// program: every scan then fails with it, and the hook refuses what needed the scan.
func Use(program string, missing error) {
	c := &conn{program: program}
	if missing != nil {
		c.started, c.err = true, fmt.Errorf("no secret scan: %w (mbguard-hook needs the mbguard it came with beside it; reinstall mbguard)", missing)
	}
	current = c
	scanner.UseEngine(func(root string) scanner.Engine { return &engine{c: c, root: root} })
}

// current is the engine process Use set up.
var current *conn

// Prewarm starts the engine process now, in the background, for a call that will likely scan:
// its start-up then runs beside the hook's own work instead of after it. A scan waits for
// the start to finish; without a scan the process ends with this one.
func Prewarm() {
	c := current
	if c == nil {
		return
	}
	c.mu.Lock()
	go func() {
		defer c.mu.Unlock()
		if !c.started {
			c.started = true
			c.err = c.start()
		}
	}()
}

// conn is the one engine process of this program, shared by every repository's engine.
type conn struct {
	program string
	mu      sync.Mutex
	started bool
	err     error // the process could not start, or broke: every later scan fails with it
	in      io.WriteCloser
	out     *bufio.Reader
	enc     *json.Encoder
	// pmu guards proc and stopped, apart from mu (held through a whole scan): Stop must not
	// wait for one
	pmu     sync.Mutex
	proc    *os.Process
	stopped bool
}

func (c *conn) call(req Request) ([]scanner.SecretFinding, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.started {
		c.started = true
		c.err = c.start()
	}
	if c.err != nil {
		return nil, c.err
	}
	if err := c.enc.Encode(req); err != nil {
		c.err = c.broken(err)
		return nil, c.err
	}
	line, err := c.out.ReadBytes('\n')
	if err != nil {
		c.err = c.broken(err)
		return nil, c.err
	}
	var r Reply
	if err := json.Unmarshal(line, &r); err != nil {
		c.err = c.broken(err)
		return nil, c.err
	}
	if r.Error != "" {
		return nil, errors.New(r.Error)
	}
	return r.Findings, nil
}

func (c *conn) broken(err error) error {
	return fmt.Errorf("the secret scan in %s stopped: %w (run mbguard doctor)", c.program, err)
}

// start runs the engine process with pipes of its own: it must hold none of the host's, or
// the host would wait for it to end before it reads the hook's reply.
func (c *conn) start() error {
	cmd := exec.Command(c.program, "scan-engine")
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	c.pmu.Lock()
	defer c.pmu.Unlock()
	if c.stopped {
		return errors.New("the secret scan engine was stopped")
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting %s for the secret scan: %w (mbguard-hook needs the mbguard it came with beside it; reinstall mbguard)", c.program, err)
	}
	// The process ends when its stdin closes (this process's end) or Stop kills it.
	go func() { _ = cmd.Wait() }()
	c.in, c.out, c.enc, c.proc = in, bufio.NewReaderSize(out, 64<<10), json.NewEncoder(in), cmd.Process
	return nil
}

// Stop ends the engine process: the hook has answered and needs no more scans. It does not
// wait for a scan under way (a hook that answered before the host's timeout must not then
// wait for the scan it gave up on): the process is killed, which ends that scan with an
// error, and no process starts after it. Killing, not only closing its stdin, also ends what
// it may have inherited (a system that hands a child every inheritable handle, as Wine does,
// gives it the host's pipe to the hook).
func Stop() {
	c := current
	if c == nil {
		return
	}
	c.pmu.Lock()
	defer c.pmu.Unlock()
	c.stopped = true
	if c.proc != nil {
		_ = c.proc.Kill()
		c.proc = nil
	}
}

type engine struct {
	c    *conn
	root string
	once sync.Once
	err  error
}

func (e *engine) Ready() error {
	e.once.Do(func() { _, e.err = e.c.call(Request{Root: e.root, Ready: true}) })
	return e.err
}

func (e *engine) Scan(path string, content []byte) ([]scanner.SecretFinding, error) {
	if err := e.Ready(); err != nil {
		return nil, err
	}
	if content == nil {
		content = []byte{}
	}
	return e.c.call(Request{Root: e.root, Path: path, Content: content})
}

// Serve answers Requests from r on w with this program's engine (scanner/engine, linked by
// the program that calls Serve) until r ends. Each repository's rules are built once.
func Serve(r io.Reader, w io.Writer) error {
	secrets := map[string]*scanner.Secrets{}
	dec := json.NewDecoder(bufio.NewReaderSize(r, 64<<10))
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	for {
		var req Request
		if err := dec.Decode(&req); errors.Is(err, io.EOF) {
			return nil
		} else if err != nil {
			return fmt.Errorf("reading a scan request: %w", err)
		}
		s := secrets[req.Root]
		if s == nil {
			s = scanner.NewSecrets(req.Root)
			secrets[req.Root] = s
		}
		var rep Reply
		var err error
		if req.Ready {
			err = s.Ready()
		} else {
			rep.Findings, err = s.Scan(req.Path, req.Content)
		}
		if err != nil {
			rep.Error = err.Error()
		}
		if err := enc.Encode(rep); err != nil {
			return err
		}
		if err := bw.Flush(); err != nil {
			return err
		}
	}
}
