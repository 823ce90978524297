package watcher

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/mbguard/mbguard/internal/jsonmsg"
)

// maxLine bounds one request line. A tool call carrying a whole file's content is large, but a
// line past this size is a broken client, not a request: it is answered with an error and
// skipped, never buffered without limit.
const maxLine = 32 << 20

// Serve speaks the JSON-lines protocol (docs/protocol.md) on in and out for svc until in reaches
// its end or ctx is cancelled, then waits for the requests in flight and closes svc, persisting
// its state.
//
// Requests are pipelined: the read loop never waits for a decision. Requests of one session are
// answered in the order they arrived (a tool.after must not overtake its tool.before); different
// sessions run concurrently. Every request gets exactly one response line, written with a single
// Write under a mutex so lines never interleave. A malformed line gets a response with Error and
// the id when one could be recovered.
func Serve(ctx context.Context, svc *Service, in io.Reader, out io.Writer) error {
	mode := ""
	if svc.Cfg != nil {
		mode = string(svc.Cfg.Policy().Mode)
	}
	return serve(ctx, svc, mode, in, out)
}

// handler is what serve needs of a Service; tests substitute a slow or panicking one.
type handler interface {
	Handle(ctx context.Context, req Request) Response
	Close() error
}

func serve(ctx context.Context, svc handler, mode string, in io.Reader, out io.Writer) error {
	s := &server{svc: svc, mode: mode, out: out, lanes: map[string]*lane{}}
	hctx, cancel := context.WithCancel(ctx)
	defer cancel()

	// The reader dispatches itself: one goroutine hop less per request than a channel to a loop.
	readErr := make(chan error, 1)
	go func() {
		readErr <- readLines(in, maxLine, func(line []byte) bool { return s.dispatch(hctx, line) })
	}()

	var err error
	select {
	case rerr := <-readErr:
		if rerr != nil {
			err = fmt.Errorf("reading requests: %w", rerr)
		}
	case <-ctx.Done():
		err = ctx.Err()
	}
	s.lanesMu.Lock()
	s.closing = true // a line read from now on is dropped, not dispatched after the Wait below
	s.lanesMu.Unlock()
	s.wg.Wait()
	if cerr := svc.Close(); cerr != nil && err == nil {
		err = fmt.Errorf("closing the service: %w", cerr)
	}
	if werr := s.writeErr(); werr != nil && err == nil {
		err = fmt.Errorf("writing responses: %w", werr)
	}
	return err
}

// errLineTooLong is the error answered for a line longer than maxLine.
var errLineTooLong = errors.New("request line too long")

// tooLong is the line readLines delivers in place of an oversized one.
var tooLong = []byte{0}

// readLines splits in into lines and hands each to dispatch until it reports a shutdown or in
// ends. An oversized line is drained and replaced by the tooLong marker so it still gets its
// one error response, and memory stays bounded.
func readLines(in io.Reader, limit int, dispatch func([]byte) (stop bool)) error {
	br := bufio.NewReaderSize(in, 64<<10)
	var buf []byte
	over := false
	for {
		chunk, err := br.ReadSlice('\n')
		if !over {
			if len(buf)+len(chunk) > limit {
				over, buf = true, nil
			} else {
				buf = append(buf, chunk...)
			}
		}
		switch {
		case err == nil || (errors.Is(err, io.EOF) && (len(buf) > 0 || over)):
			stop := false
			if over {
				stop = dispatch(tooLong)
			} else if l := bytes.TrimSpace(buf); len(l) > 0 {
				stop = dispatch(bytes.Clone(l))
			}
			buf, over = buf[:0], false
			if err != nil || stop {
				return nil
			}
		case errors.Is(err, bufio.ErrBufferFull):
			// the line goes on; keep accumulating
		case errors.Is(err, io.EOF):
			return nil
		default:
			return err
		}
	}
}

// server is one Serve call's shared state.
type server struct {
	svc  handler
	mode string

	outMu sync.Mutex
	out   io.Writer
	werr  error

	lanesMu sync.Mutex
	lanes   map[string]*lane
	closing bool // serve is ending: dispatch no more
	wg      sync.WaitGroup
}

// lane is the queue of one session's requests; a goroutine runs it while it is non-empty.
type lane struct {
	queue []Request
}

// dispatch queues one line's request and reports whether it was a shutdown, which is answered
// only after every request before it.
func (s *server) dispatch(ctx context.Context, line []byte) (shutdown bool) {
	if bytes.Equal(line, tooLong) {
		s.write(Response{Error: fmt.Sprintf("%v (limit %d bytes); send one JSON object per line", errLineTooLong, maxLine)})
		return false
	}
	var req Request
	if err := json.Unmarshal(line, &req); err != nil {
		var idOnly struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.Unmarshal(line, &idOnly) // best effort: answer with the id when it parses
		s.write(Response{ID: idOnly.ID, Error: "malformed request: " + jsonmsg.Describe(err) + "; send one JSON object per line"})
		return false
	}
	if req.Op == "shutdown" {
		s.wg.Wait() // every request before it is answered first
		s.wg.Add(1)
		s.handle(ctx, req)
		s.wg.Done()
		return true
	}
	key := req.Session
	if req.Event != nil {
		key = req.Event.Session
	}
	s.lanesMu.Lock()
	if s.closing {
		s.lanesMu.Unlock()
		return true
	}
	s.wg.Add(1)
	s.lanesMu.Unlock()
	if key == "" {
		// no session, no order to keep (ping, status)
		go func() {
			defer s.wg.Done()
			s.handle(ctx, req)
		}()
		return false
	}
	s.lanesMu.Lock()
	l, running := s.lanes[key]
	if !running {
		l = &lane{}
		s.lanes[key] = l
	}
	l.queue = append(l.queue, req)
	s.lanesMu.Unlock()
	if !running {
		go s.run(ctx, key, l)
	}
	return false
}

// run drains one session's lane in order and removes it when empty, so idle sessions cost nothing.
func (s *server) run(ctx context.Context, key string, l *lane) {
	for {
		s.lanesMu.Lock()
		if len(l.queue) == 0 {
			delete(s.lanes, key)
			s.lanesMu.Unlock()
			return
		}
		req := l.queue[0]
		l.queue[0] = Request{}
		l.queue = l.queue[1:]
		s.lanesMu.Unlock()
		s.handle(ctx, req)
		s.wg.Done()
	}
}

// handle answers one request; a panic in the service becomes an error response, never a dead server.
func (s *server) handle(ctx context.Context, req Request) {
	resp := Response{ID: req.ID, Error: "internal error"}
	func() {
		defer func() {
			if r := recover(); r != nil {
				resp = Response{ID: req.ID, Error: fmt.Sprintf("internal error: %v; run mbguard doctor", r)}
			}
		}()
		resp = s.svc.Handle(ctx, req)
	}()
	if resp.ID == nil {
		resp.ID = req.ID
	}
	if resp.Mode == "" {
		resp.Mode = s.mode
	}
	if resp.Decision != nil && resp.Decision.Recovery == "armed" {
		resp.RecoveryArmed = true
	}
	s.write(resp)
}

func (s *server) write(resp Response) {
	b, err := json.Marshal(resp)
	if err != nil {
		b, _ = json.Marshal(Response{ID: resp.ID, Error: "encoding response: " + err.Error()})
	}
	b = append(b, '\n')
	s.outMu.Lock()
	defer s.outMu.Unlock()
	if s.werr != nil {
		return // the host is gone; keep draining so Serve can still persist and exit
	}
	if _, err := s.out.Write(b); err != nil {
		s.werr = err
	}
}

func (s *server) writeErr() error {
	s.outMu.Lock()
	defer s.outMu.Unlock()
	return s.werr
}
