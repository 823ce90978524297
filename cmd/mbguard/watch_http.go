package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/mbguard/mbguard/hooks"
	"github.com/mbguard/mbguard/internal/proctab"
	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/outcome"
	"github.com/mbguard/mbguard/watcher"
)

// httpHooks answers Claude Code's type "http" hooks for a running watcher (watch.http_port):
// hooks.AnswerHTTP, for requests whose sender the process table names.
type httpHooks struct {
	hook *hooks.Hook
	tab  proctab.Table
	repo repo.Repo                     // the watcher's
	logf func(format string, a ...any) // --verbose

	mu    sync.Mutex
	hints []int // the last processes found holding a client socket: asked first
}

type senderKey struct{}

// sender is who holds a connection's client socket.
type sender struct {
	pid int
	why string
}

// startHTTPHooks answers Claude Code's http hooks when watch.http_port is set, and says so.
// When it cannot, Claude Code's http hooks fail, and refuse the calls they guard.
func (e *env) startHTTPHooks(ctx context.Context, svc *watcher.Service, port int) {
	if port <= 0 {
		return
	}
	if err := e.serveHTTPHooks(ctx, svc, port); err != nil {
		fmt.Fprintf(e.stderr, "mbguard: %v\n", err)
		return
	}
	fmt.Fprintf(e.stderr, "mbguard: answering Claude Code's http hooks at %s\n", hooks.HTTPURL(port))
}

// serveHTTPHooks listens on 127.0.0.1:port and answers Claude Code's http hooks with the
// watcher's Service until ctx ends. It returns when the listener is up (or could not be).
func (e *env) serveHTTPHooks(ctx context.Context, svc *watcher.Service, port int) error {
	tab := proctab.Local()
	if !tab.Supported() {
		return errors.New("http hooks need a process table to tell the host's requests from forged ones, and this system has none: set watch.http_port to 0 and run mbguard install again")
	}
	if resp := svc.Handle(ctx, watcher.Request{Op: "trust"}); resp.Agent != "" {
		return errors.New("this watcher was started inside an agent's tool call (" + resp.Agent + "), so it answers no http hooks: the person starts it in a terminal (mbguard watch --detach)")
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		return fmt.Errorf("answering http hooks on 127.0.0.1:%d: %w; pick a free port for watch.http_port and run mbguard install again", port, err)
	}
	hh := &httpHooks{tab: tab, logf: e.logf, repo: svc.Repo, hook: &hooks.Hook{Host: "claude", Dir: svc.Repo.Root, Getenv: e.getenv, Sets: e.sets, Now: time.Now,
		Connect: hooks.ConnectOwn(svc, time.Now)}}
	srv := &http.Server{
		Handler: hh,
		// Claude Code gives a hook 30 s (install writes it); a request that dribbles in for
		// longer than that is not the host's
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       40 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			return context.WithValue(ctx, senderKey{}, hh.senderOf(c))
		},
	}
	go func() { _ = srv.Serve(ln) }()
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	return nil
}

// senderOf names the process that holds c's client socket: same user only.
func (hh *httpHooks) senderOf(c net.Conn) sender {
	client, err1 := netip.ParseAddrPort(c.RemoteAddr().String())
	server, err2 := netip.ParseAddrPort(c.LocalAddr().String())
	if err1 != nil || err2 != nil {
		return sender{why: "its address cannot be read"}
	}
	s, ok := hh.tab.TCPSocket(client, server)
	switch {
	case !ok:
		return sender{why: "its socket is not in the process table"}
	case s.UID != os.Getuid():
		return sender{why: "it runs as another user"}
	}
	hh.mu.Lock()
	hints := append([]int(nil), hh.hints...)
	hh.mu.Unlock()
	pid := hh.tab.SocketHolder(s.Inode, hints...)
	if pid == 0 {
		return sender{why: "no process of this user holds its socket"}
	}
	hh.mu.Lock()
	if len(hh.hints) == 0 || hh.hints[0] != pid {
		hh.hints = append([]int{pid}, hh.hints...)
		hh.hints = hh.hints[:min(len(hh.hints), 4)]
	}
	hh.mu.Unlock()
	return sender{pid: pid}
}

func (hh *httpHooks) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path != hooks.HTTPPath:
		http.Error(w, "mbguard answers Claude Code's hooks at "+hooks.HTTPPath, http.StatusNotFound)
		return
	case r.Method != http.MethodPost:
		http.Error(w, "hook events are POSTed", http.StatusMethodNotAllowed)
		return
	case r.Header.Get(hooks.HTTPHeader) != hooks.HTTPHeaderValue:
		http.Error(w, "not an mbguard hook request (header "+hooks.HTTPHeader+" missing)", http.StatusForbidden)
		return
	}
	// before the body is read (a request from inside a tool call may be 64 MiB of nothing): a
	// sender that cannot be told, or one under a tool call of this repository
	from, _ := r.Context().Value(senderKey{}).(sender)
	if from.pid <= 0 {
		http.Error(w, "[mbguard] refused: the process that sent this request could not be told ("+from.why+"); nothing was recorded", http.StatusForbidden)
		return
	}
	if o, ok := outcome.FromCall(hh.repo, from.pid, true); ok {
		http.Error(w, "[mbguard] refused: this request comes from inside an agent's tool call ("+o.String()+"), not from Claude Code; nothing was recorded", http.StatusForbidden)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, hooks.MaxPayload+1))
	if err != nil {
		http.Error(w, "reading the hook payload: "+err.Error(), http.StatusBadRequest)
		return
	}
	status, out := hh.hook.AnswerHTTP(r.Context(), hooks.HTTPRequest{Payload: body, From: from.pid, Why: from.why, Env: r.Header.Get(hooks.HTTPEnvHeader)})
	hh.logf("http hook %s from pid %d: %d %.200s", eventName(body), from.pid, status, out)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(out)
}

// httpPort is watch.http_port for a project install of Claude Code's hooks (0 otherwise, and
// off Linux, where the watcher cannot tell who sent a request: the hooks stay processes).
func (e *env) httpPort(r repo.Repo, f *installFlags) int {
	if spec, ok := hooks.LookupHost(f.agent); !ok || len(spec.HTTPEvents) == 0 || f.global || f.uninstall || r.Root == "" {
		return 0
	}
	cfg, err := e.config(r.Root)
	if err != nil || cfg.Watch.HTTPPort <= 0 {
		return 0
	}
	if !proctab.Local().Supported() {
		fmt.Fprintln(e.stderr, "mbguard: watch.http_port is set, but http hooks need Linux's process table to tell the host's requests from forged ones: Claude Code's hooks stay processes here")
		return 0
	}
	return cfg.Watch.HTTPPort
}

// eventName is the payload's hook_event_name, for the log (its first occurrence; "?" when none).
func eventName(payload []byte) string {
	const key = `"hook_event_name":"`
	i := bytes.Index(payload, []byte(key))
	if i < 0 {
		return "?"
	}
	rest := payload[i+len(key):]
	if j := bytes.IndexByte(rest, '"'); j >= 0 && j < 64 {
		return string(rest[:j])
	}
	return "?"
}
