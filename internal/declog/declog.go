package declog

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// FileName is the log's name inside the state directory.
const FileName = "decisions.jsonl"

// Path is the log inside stateDir.
func Path(stateDir string) string { return filepath.Join(stateDir, FileName) }

// Entry is one logged decision.
type Entry struct {
	Time     time.Time `json:"time"`
	Session  string    `json:"session,omitempty"`
	Host     string    `json:"host,omitempty"`
	Event    string    `json:"event,omitempty"`
	Tool     string    `json:"tool,omitempty"`
	Gate     string    `json:"gate,omitempty"`
	Verdict  string    `json:"verdict"`
	Risk     string    `json:"risk,omitempty"`
	Recovery string    `json:"recovery,omitempty"` // armed, cleared
	Paths    []string  `json:"paths,omitempty"`
	Message  string    `json:"message,omitempty"`
}

// maxLine keeps one entry under the size the kernel appends atomically on local file systems
// in practice, so concurrent hook processes never interleave halves of lines.
const maxLine = 3500

// Append adds e to the log at path, creating it and its directory when needed. The line is
// written with one write call on an O_APPEND file, so concurrent writers do not interleave.
func Append(path string, e Entry) error {
	b, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("encoding decision: %w", err)
	}
	if len(b) > maxLine {
		if len(e.Paths) > 20 {
			e.Paths = append(e.Paths[:20:20], fmt.Sprintf("… %d more", len(e.Paths)-20))
		}
		if len(e.Message) > 1500 {
			e.Message = e.Message[:1500] + "…"
		}
		if b, err = json.Marshal(e); err != nil {
			return fmt.Errorf("encoding decision: %w", err)
		}
	}
	b = append(b, '\n')
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if errors.Is(err, os.ErrNotExist) {
		if err = os.MkdirAll(filepath.Dir(path), 0o755); err == nil {
			f, err = os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		}
	}
	if err != nil {
		return fmt.Errorf("appending to the decision log: %w", err)
	}
	_, werr := f.Write(b)
	cerr := f.Close()
	if werr != nil {
		return fmt.Errorf("appending to the decision log: %w", werr)
	}
	if cerr != nil {
		return fmt.Errorf("appending to the decision log: %w", cerr)
	}
	return nil
}

// maxReadLine bounds one line Read decodes; mbguard writes lines under maxLine, so a longer one
// was put there by something else and is skipped (counted as unreadable) without being held.
const maxReadLine = 1 << 20

// Read returns the last limit entries of the log (all when limit <= 0), oldest first, and how
// many lines could not be decoded (a crash can leave a torn last line; a line over 1 MiB is
// skipped). Lines of any length never stop the reading. A missing log is empty.
func Read(path string, limit int) ([]Entry, int, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("reading the decision log: %w", err)
	}
	defer f.Close()
	var out []Entry
	bad, err := eachLine(f, maxReadLine, func(line []byte) bool {
		var e Entry
		if json.Unmarshal(line, &e) != nil {
			return false
		}
		out = append(out, e)
		if limit > 0 && len(out) > 2*limit {
			out = append(out[:0], out[len(out)-limit:]...)
		}
		return true
	})
	if err != nil {
		return nil, bad, fmt.Errorf("reading the decision log: %w", err)
	}
	if limit > 0 && len(out) > limit {
		out = out[len(out)-limit:]
	}
	return out, bad, nil
}

// eachLine calls fn for each non-blank line of r up to max bytes, and returns how many lines
// fn rejected or were longer than max (those are skipped without being kept in memory).
func eachLine(r io.Reader, max int, fn func([]byte) bool) (int, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var long []byte
	bad, over := 0, false
	for {
		chunk, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			if !over && len(long)+len(chunk) <= max {
				long = append(long, chunk...)
			} else {
				over, long = true, long[:0]
			}
			continue
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return bad, err
		}
		line := chunk
		if len(long) > 0 || over {
			if !over && len(long)+len(chunk) <= max {
				long = append(long, chunk...)
				line = long
			} else {
				over = true
			}
		}
		switch {
		case over:
			bad++
		case len(bytes.TrimSpace(line)) == 0:
		case !fn(bytes.TrimRight(line, "\r\n")):
			bad++
		}
		long, over = long[:0], false
		if err != nil {
			return bad, nil
		}
	}
}
