package watcher

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mbguard/mbguard/internal/flock"
	"github.com/mbguard/mbguard/internal/fsutil"
	"github.com/mbguard/mbguard/internal/jsonmsg"
	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/outcome"
)

// Files of a running `mbguard watch`, inside repo.StateDir().
const (
	SocketFile = "watch.sock" // the unix socket, when its path is short enough
	AddrFile   = "watch.addr" // the socket's actual path; present only while a watcher listens
	PIDFile    = "watch.pid"  // locked by the running watcher; holds its pid, alone (kill $(cat watch.pid))
)

// maxSunPath is the longest socket path every unix accepts (sun_path is 104 bytes on macOS,
// 108 on Linux, both counting the terminating NUL).
const maxSunPath = 103

// maxRequestLine bounds one request line on the socket.
const maxRequestLine = 16 << 20

// ErrNoWatcher is returned by Dial when no watcher runs for the repository.
var ErrNoWatcher = errors.New("no mbguard watch runs for this repository")

// RunningError is returned when a watcher already runs for the repository.
type RunningError struct {
	PID    int
	Socket string
}

func (e *RunningError) Error() string {
	return fmt.Sprintf("a watcher already runs for this repository (pid %d, socket %s); stop it with mbguard watch --stop", e.PID, e.Socket)
}

// SocketPath is where the watcher for r listens: watch.sock in the state directory, or, when
// that path is too long for a unix socket, a short path under os.TempDir() keyed by the git
// directory. Clients do not compute it: they read AddrFile, which the watcher writes.
func SocketPath(r repo.Repo) string {
	p := filepath.Join(r.StateDir(), SocketFile)
	if len(p) <= maxSunPath {
		return p
	}
	sum := sha256.Sum256([]byte(r.GitDir))
	return filepath.Join(os.TempDir(), "mbguard-"+hex.EncodeToString(sum[:8])+".sock")
}

// Daemon is a running `mbguard watch`: a resident Service, the file watcher, and the unix
// socket that speaks the JSON-lines protocol (docs/protocol.md) to per-call hooks.
type Daemon struct {
	svc       *Service
	ln        *net.UnixListener
	lock      *os.File
	sock      string
	addr      string
	watcher   *Watcher
	stopWatch func()
	logf      func(string, ...any)

	ctx      context.Context
	cancel   context.CancelFunc
	conns    sync.WaitGroup
	mu       sync.Mutex
	open     map[net.Conn]bool
	done     chan struct{}
	closeErr error
}

// StartDaemon takes the repository's watcher lock, listens on its socket and starts the file
// watcher. A second watcher for the same repository gets a *RunningError naming the first; a
// socket left by a killed watcher is replaced. Call Wait to serve until ctx ends or a client
// sends op "shutdown".
func StartDaemon(ctx context.Context, svc *Service, o WatchOptions) (*Daemon, error) {
	r := svc.Repo
	if o, ok := outcome.FromCall(r, os.Getpid(), true); ok {
		// kept for the hooks' handshake: they will not trust this watcher
		svc.startedUnder = o.String()
	}
	if err := os.MkdirAll(r.StateDir(), 0o755); err != nil {
		return nil, fmt.Errorf("creating %s: %w", r.StateDir(), err)
	}
	lock, err := lockPID(r)
	if err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			lock.Close()
		}
	}()
	sock := SocketPath(r)
	// We hold the lock, so a socket file here belongs to a watcher that died without cleaning up.
	if err := os.Remove(sock); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("removing stale socket %s: %w", sock, err)
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("listening on %s: %w", sock, err)
	}
	ln.SetUnlinkOnClose(true)
	if err := os.Chmod(sock, 0o600); err != nil { // only the user's own hooks may talk to it
		ln.Close()
		return nil, fmt.Errorf("securing %s: %w", sock, err)
	}
	if _, err := lock.WriteAt([]byte(fmt.Sprintf("%d\n", os.Getpid())), 0); err != nil {
		ln.Close()
		return nil, fmt.Errorf("writing %s: %w", lock.Name(), err)
	}
	w, stopWatch, err := svc.WatchBank(ctx, o)
	if err != nil {
		ln.Close()
		return nil, err
	}
	addr := filepath.Join(r.StateDir(), AddrFile)
	// written last: its presence tells clients (and scripts) that the socket answers
	if err := fsutil.WriteFileAtomic(addr, []byte(sock+"\n"), 0o644); err != nil {
		stopWatch()
		ln.Close()
		return nil, err
	}
	ok = true
	d := &Daemon{svc: svc, ln: ln, lock: lock, sock: sock, addr: addr, watcher: w, stopWatch: stopWatch, logf: o.Logf, open: map[net.Conn]bool{}, done: make(chan struct{})}
	d.ctx, d.cancel = context.WithCancel(ctx)
	go d.accept()
	go func() {
		<-d.ctx.Done()
		d.shutdown()
	}()
	return d, nil
}

// lockPID takes the watcher lock of r without waiting; a held lock names its holder.
func lockPID(r repo.Repo) (*os.File, error) {
	p := filepath.Join(r.StateDir(), PIDFile)
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", p, err)
	}
	if err := flock.TryLock(f); err != nil {
		f.Close()
		if errors.Is(err, flock.ErrHeld) {
			pid, sock := readPIDFile(p)
			return nil, &RunningError{PID: pid, Socket: sock}
		}
		return nil, fmt.Errorf("locking %s: %w", p, err)
	}
	if err := f.Truncate(0); err != nil {
		f.Close()
		return nil, fmt.Errorf("writing %s: %w", p, err)
	}
	return f, nil
}

// readPIDFile returns the watcher's pid and its socket, read from AddrFile beside the pid file
// (a watcher of an older mbguard wrote the socket as the pid file's second line).
func readPIDFile(p string) (int, string) {
	b, _ := os.ReadFile(p)
	pidText, sock, _ := strings.Cut(string(b), "\n")
	pid, _ := strconv.Atoi(strings.TrimSpace(pidText))
	if sock = strings.TrimSpace(sock); sock == "" {
		a, _ := os.ReadFile(filepath.Join(filepath.Dir(p), AddrFile))
		sock = strings.TrimSpace(string(a))
	}
	return pid, sock
}

// Socket is the path the daemon listens on.
func (d *Daemon) Socket() string { return d.sock }

// Watcher is the daemon's file watcher (for IgnoreNext).
func (d *Daemon) Watcher() *Watcher { return d.watcher }

// Wait blocks until the daemon has shut down and cleaned up its socket and lock.
func (d *Daemon) Wait() error {
	<-d.done
	return d.closeErr
}

// Close shuts the daemon down and waits for it.
func (d *Daemon) Close() error {
	d.cancel()
	return d.Wait()
}

func (d *Daemon) shutdown() {
	d.ln.Close()
	d.mu.Lock()
	for c := range d.open {
		c.Close()
	}
	d.mu.Unlock()
	d.conns.Wait()
	d.stopWatch()
	err := d.svc.Close()
	os.Remove(d.addr)
	d.lock.Truncate(0)
	d.lock.Close() // releases the flock
	d.closeErr = err
	close(d.done)
}

func (d *Daemon) accept() {
	for {
		c, err := d.ln.Accept()
		if err != nil {
			if d.ctx.Err() == nil {
				d.log("accepting: %v", err)
				d.cancel()
			}
			return
		}
		d.mu.Lock()
		if d.ctx.Err() != nil {
			d.mu.Unlock()
			c.Close()
			return
		}
		d.open[c] = true
		d.conns.Add(1)
		d.mu.Unlock()
		go d.serveConn(c)
	}
}

// serveConn answers one connection's requests in order. Per-call hooks send one request and
// hang up; a long-lived client may pipeline.
func (d *Daemon) serveConn(c net.Conn) {
	defer func() {
		d.mu.Lock()
		delete(d.open, c)
		d.mu.Unlock()
		c.Close()
		d.conns.Done()
	}()
	sc := bufio.NewScanner(c)
	sc.Buffer(make([]byte, 64<<10), maxRequestLine)
	pid := peerPID(c)
	ctx := d.ctx
	if pid > 0 {
		ctx = WithRequester(ctx, pid)
	}
	forged := d.fromAgent(pid)
	for sc.Scan() {
		line := sc.Bytes()
		if len(strings.TrimSpace(string(line))) == 0 {
			continue
		}
		req, resp, decoded := d.answer(ctx, line, forged)
		out := encodeResponse(resp, req.ID)
		if _, err := c.Write(append(out, '\n')); err != nil {
			return
		}
		if decoded && req.Op == "shutdown" {
			d.cancel()
			return
		}
	}
	if err := sc.Err(); err != nil && d.ctx.Err() == nil && !errors.Is(err, net.ErrClosed) {
		out, _ := json.Marshal(Response{Error: fmt.Sprintf("reading request: %v", err)})
		c.Write(append(out, '\n'))
	}
}

// answer decodes one request line and answers it: a malformed line, or a request other than
// ping, status and trust on a connection from the agent (forged says why), gets an error.
func (d *Daemon) answer(ctx context.Context, line []byte, forged string) (req Request, resp Response, decoded bool) {
	if derr := json.Unmarshal(line, &req); derr != nil {
		return req, Response{ID: recoverID(line), Error: "malformed request line: " + jsonmsg.Describe(derr)}, false
	}
	if forged != "" && req.Op != "ping" && req.Op != "status" && req.Op != "trust" {
		return req, Response{ID: req.ID, Error: forged}, true
	}
	return req, d.svc.Handle(ctx, req), true
}

// encodeResponse is resp as JSON, or an error response for request id when it cannot be encoded.
func encodeResponse(resp Response, id json.RawMessage) []byte {
	out, err := json.Marshal(resp)
	if err != nil {
		out, _ = json.Marshal(Response{ID: id, Error: "encoding response: " + err.Error()})
	}
	return out
}

// recoverID pulls the id out of a line that does not decode as a Request.
func recoverID(line []byte) json.RawMessage {
	var probe struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(line, &probe) == nil {
		return probe.ID
	}
	return nil
}

func (d *Daemon) log(format string, a ...any) {
	if d.logf != nil {
		d.logf(format, a...)
	}
}

// Client talks to a running watcher over its socket. It is not safe for concurrent use.
type Client struct {
	conn net.Conn
	rd   *bufio.Reader
	next int
}

// dialTimeout bounds connecting to a socket that exists; a live watcher accepts at once.
const dialTimeout = 200 * time.Millisecond

// defaultDoTimeout bounds a request whose context has no deadline.
const defaultDoTimeout = 2 * time.Second

// Dial connects to the watcher of r. With no watcher running it fails within a few
// microseconds (one missing file) or, for a watcher that was killed, one refused connect,
// returning an error wrapping ErrNoWatcher; per-call hooks then serve the request themselves.
func Dial(r repo.Repo) (*Client, error) {
	b, err := os.ReadFile(filepath.Join(r.StateDir(), AddrFile))
	if err != nil {
		return nil, ErrNoWatcher
	}
	sock := strings.TrimSpace(string(b))
	conn, err := net.DialTimeout("unix", sock, dialTimeout)
	if err != nil {
		return nil, fmt.Errorf("%w (stale socket %s: %v)", ErrNoWatcher, sock, err)
	}
	return &Client{conn: conn, rd: bufio.NewReaderSize(conn, 64<<10)}, nil
}

// Do sends req and waits for its response, bounded by ctx's deadline (2 s when it has none).
// A request without an ID gets one.
func (c *Client) Do(ctx context.Context, req Request) (Response, error) {
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(defaultDoTimeout)
	}
	if err := c.conn.SetDeadline(deadline); err != nil {
		return Response{}, fmt.Errorf("talking to the watcher: %w", err)
	}
	if len(req.ID) == 0 {
		c.next++
		req.ID = json.RawMessage(strconv.Itoa(c.next))
	}
	line, err := json.Marshal(req)
	if err != nil {
		return Response{}, fmt.Errorf("encoding request: %w", err)
	}
	if _, err := c.conn.Write(append(line, '\n')); err != nil {
		return Response{}, fmt.Errorf("sending to the watcher: %w", err)
	}
	out, err := c.rd.ReadBytes('\n')
	if err != nil {
		return Response{}, fmt.Errorf("reading from the watcher: %w", err)
	}
	var resp Response
	if err := json.Unmarshal(out, &resp); err != nil {
		return Response{}, fmt.Errorf("decoding the watcher's response: %w", err)
	}
	return resp, nil
}

// Close hangs up.
func (c *Client) Close() error { return c.conn.Close() }

// Stop asks the watcher of r to shut down and waits up to timeout for it to release its lock.
// A watcher that does not answer on its socket is sent SIGTERM. It returns the stopped
// watcher's pid, or 0 when none was running.
func Stop(r repo.Repo, timeout time.Duration) (int, error) {
	pidPath := filepath.Join(r.StateDir(), PIDFile)
	pid, _ := readPIDFile(pidPath)
	if !lockHeld(pidPath) {
		return 0, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if c, err := Dial(r); err == nil {
		_, err = c.Do(ctx, Request{Op: "shutdown"})
		c.Close()
		if err != nil && pid > 0 {
			terminate(pid)
		}
	} else if pid > 0 {
		terminate(pid)
	}
	for lockHeld(pidPath) {
		if ctx.Err() != nil {
			return pid, fmt.Errorf("the watcher (pid %d) did not stop within %s; stop it with kill %d", pid, timeout, pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
	return pid, nil
}

// terminate asks process pid to stop: SIGTERM where signals exist, else (Windows) it is killed.
func terminate(pid int) {
	p, err := os.FindProcess(pid)
	if err != nil {
		return
	}
	if p.Signal(syscall.SIGTERM) != nil {
		p.Kill()
	}
}

// lockHeld reports whether a process holds the lock on path.
func lockHeld(path string) bool { return flock.Held(path) }

// Running reports the pid and socket of the watcher of r, when one runs.
func Running(r repo.Repo) (pid int, socket string, ok bool) {
	p := filepath.Join(r.StateDir(), PIDFile)
	if !lockHeld(p) {
		return 0, "", false
	}
	pid, socket = readPIDFile(p)
	return pid, socket, true
}
