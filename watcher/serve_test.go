package watcher

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/mbguard/mbguard/gating"
)

// fakeHandler answers with the request's op echoed in Error, records the order it saw requests
// in, and holds requests for sessions listed in hold until they are released.
type fakeHandler struct {
	mu     sync.Mutex
	seen   []string
	hold   map[string]chan struct{}
	closed bool
}

func (f *fakeHandler) Handle(ctx context.Context, req Request) Response {
	sess := req.Session
	if req.Event != nil {
		sess = req.Event.Session
	}
	if ch, ok := f.hold[sess]; ok {
		<-ch
	}
	if req.Op == "panic" {
		panic("boom")
	}
	f.mu.Lock()
	f.seen = append(f.seen, string(req.ID))
	f.mu.Unlock()
	return Response{ID: req.ID, Decision: &gating.Decision{Verdict: gating.Allow, Message: req.Op}}
}

func (f *fakeHandler) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
	return nil
}

// pipeSession is a running serve on pipes: the request writer and the response reader.
type pipeSession struct {
	in   *io.PipeWriter
	out  *bufio.Scanner
	done chan error
}

func startServe(t *testing.T, h handler) *pipeSession {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &pipeSession{in: inW, out: bufio.NewScanner(outR), done: make(chan error, 1)}
	go func() {
		err := serve(context.Background(), h, "warn", inR, outW)
		outW.Close()
		s.done <- err
	}()
	t.Cleanup(func() { inW.Close(); outR.Close() })
	return s
}

func (s *pipeSession) send(t *testing.T, lines ...string) {
	t.Helper()
	if _, err := io.WriteString(s.in, strings.Join(lines, "\n")+"\n"); err != nil {
		t.Fatal(err)
	}
}

func (s *pipeSession) recv(t *testing.T) Response {
	t.Helper()
	if !s.out.Scan() {
		t.Fatalf("no response line: %v", s.out.Err())
	}
	var r Response
	if err := json.Unmarshal(s.out.Bytes(), &r); err != nil {
		t.Fatalf("response is not one JSON object: %q: %v", s.out.Text(), err)
	}
	return r
}

func TestServeAnswersEveryRequestOnce(t *testing.T) {
	cases := []struct {
		name    string
		line    string
		wantID  string
		wantErr string // substring; "" means no error
	}{
		{"number id", `{"id":1,"op":"ping"}`, `1`, ""},
		{"string id", `{"id":"a-1","op":"event","event":{"kind":"tool.before","session":"s1","tool":"read"}}`, `"a-1"`, ""},
		{"no id", `{"op":"ping"}`, ``, ""},
		{"not json", `hello`, ``, "malformed request"},
		{"id recovered from a bad field", `{"id":7,"op":5}`, `7`, `malformed request: "op" is a number where a string belongs`},
		{"truncated object", `{"id":8,"op":"ping"`, ``, "malformed request"},
		{"panicking service", `{"id":9,"op":"panic"}`, `9`, "internal error"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := startServe(t, &fakeHandler{})
			s.send(t, c.line)
			r := s.recv(t)
			if string(r.ID) != c.wantID {
				t.Errorf("id = %s, want %s", r.ID, c.wantID)
			}
			if c.wantErr == "" && r.Error != "" || !strings.Contains(r.Error, c.wantErr) {
				t.Errorf("error = %q, want %q", r.Error, c.wantErr)
			}
			if strings.Contains(r.Error, "Go ") || strings.Contains(r.Error, "watcher.") {
				t.Errorf("error %q names Go types", r.Error)
			}
			if c.wantErr == "" && r.Mode != "warn" {
				t.Errorf("mode = %q, want the server's mode warn", r.Mode)
			}
			s.in.Close()
			if s.out.Scan() {
				t.Errorf("extra response line %q", s.out.Text())
			}
			if err := <-s.done; err != nil {
				t.Errorf("serve returned %v", err)
			}
		})
	}
}

// TestServePipelined shows the read loop is not held up by a slow request: a session whose
// request is stuck does not delay another session's answer.
func TestServePipelined(t *testing.T) {
	release := make(chan struct{})
	h := &fakeHandler{hold: map[string]chan struct{}{"slow": release}}
	s := startServe(t, h)
	s.send(t,
		`{"id":1,"op":"event","event":{"kind":"tool.before","session":"slow"}}`,
		`{"id":2,"op":"event","event":{"kind":"tool.before","session":"fast"}}`,
		`{"id":3,"op":"ping"}`)
	got := map[string]bool{}
	for range 2 {
		got[string(s.recv(t).ID)] = true
	}
	if !got["2"] || !got["3"] {
		t.Fatalf("answered %v before the slow request was released, want 2 and 3", got)
	}
	close(release)
	if r := s.recv(t); string(r.ID) != "1" {
		t.Fatalf("then got id %s, want 1", r.ID)
	}
}

// TestServeKeepsSessionOrder: a session's events are decided in the order they were sent, even
// when they all arrive at once.
func TestServeKeepsSessionOrder(t *testing.T) {
	h := &fakeHandler{}
	s := startServe(t, h)
	var lines, want []string
	for i := range 200 {
		id := strings.Repeat("x", i%3) + string(rune('A'+i%26)) + "-" + itoa(i)
		lines = append(lines, `{"id":"`+id+`","op":"event","event":{"kind":"tool.after","session":"one"}}`)
		want = append(want, `"`+id+`"`)
	}
	s.send(t, lines...)
	for range lines {
		s.recv(t)
	}
	s.in.Close()
	if err := <-s.done; err != nil {
		t.Fatal(err)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if strings.Join(h.seen, ",") != strings.Join(want, ",") {
		t.Fatalf("handled out of order:\n got %v\nwant %v", h.seen, want)
	}
	if !h.closed {
		t.Fatal("service not closed when stdin ended")
	}
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}

func TestReadLinesOversized(t *testing.T) {
	in := strings.NewReader(`{"id":1}` + "\n" + strings.Repeat("y", 300) + "\n" + `{"id":2}`)
	var got []string
	if err := readLines(in, 100, func(l []byte) bool { got = append(got, string(l)); return false }); err != nil {
		t.Fatal(err)
	}
	want := []string{`{"id":1}`, string(tooLong), `{"id":2}`}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("lines = %q, want %q", got, want)
	}
}

// brokenWriter fails every write, like stdout after the host died.
type brokenWriter struct{}

func (brokenWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

func TestServeHostGone(t *testing.T) {
	h := &fakeHandler{}
	err := serve(context.Background(), h, "warn", strings.NewReader(`{"id":1,"op":"ping"}`+"\n"+`{"id":2,"op":"ping"}`), brokenWriter{})
	if err == nil || !strings.Contains(err.Error(), "writing responses") {
		t.Fatalf("err = %v, want a write error", err)
	}
	if !h.closed {
		t.Fatal("service not closed")
	}
}

// TestServeShutdown: shutdown is answered after the requests before it, and serve ends without
// waiting for stdin to close.
func TestServeShutdown(t *testing.T) {
	release := make(chan struct{})
	h := &fakeHandler{hold: map[string]chan struct{}{"slow": release}}
	s := startServe(t, h)
	s.send(t,
		`{"id":1,"op":"event","event":{"kind":"tool.before","session":"slow"}}`,
		`{"id":2,"op":"shutdown"}`)
	close(release)
	for _, want := range []string{"1", "2"} {
		if r := s.recv(t); string(r.ID) != want {
			t.Fatalf("got id %s, want %s", r.ID, want)
		}
	}
	if err := <-s.done; err != nil {
		t.Fatalf("serve returned %v", err)
	}
	if !h.closed {
		t.Fatal("service not closed on shutdown")
	}
}
