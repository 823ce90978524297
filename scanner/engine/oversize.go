package engine

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"

	"github.com/mbguard/mbguard/scanner"
	"github.com/zricethezav/gitleaks/v8/report"
)

// ScanReader scans content too large to hold (check names a file over scanner.MaxFileSize too large
// without reading it; this stays for callers that must scan such a stream): segments of
// streamSegment bytes, each scanned inside a window that reaches streamOverlap bytes further
// on both sides (cut at line starts), keeping the findings that start in the segment.
//
// Rules that plan.go cuts at lines (most of gitleaks' rules) find exactly what they find in
// the whole file: their matches never cross a newline, and the window edges are line starts.
// The other rules, and generic-api-key, find every match of up to streamOverlap bytes wherever
// the segment edges fall; their matches in notes are a few hundred bytes at most (a private
// key block is ~3 KB).
//
// They are variables only so that tests can make segments small.
var (
	streamSegment = 4 << 20
	streamOverlap = 256 << 10
)

// ScanReader is Scan for content read from r, holding at most about
// streamSegment+2*streamOverlap bytes of it. only, when not nil, lists the 1-based lines to
// scan (the lines a commit adds); other lines are read as empty.
func (s *Detector) ScanReader(path string, r io.Reader, only []int) ([]scanner.SecretFinding, error) {
	if err := s.Ready(); err != nil {
		return nil, err
	}
	path = filepath.ToSlash(path)
	sr := &segmentReader{br: bufio.NewReaderSize(r, 1<<20), line: 1}
	segFrom := 0 // offset where the next segment starts (a line start)
	var out []scanner.SecretFinding
	for {
		if err := sr.fill(segFrom + streamSegment + 2*streamOverlap); err != nil {
			return nil, fmt.Errorf("reading %s: %w", path, err)
		}
		if segFrom >= sr.end() {
			break
		}
		segTo, err := sr.lineEnd(min(segFrom+streamSegment, sr.end()) - 1)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", path, err)
		}
		winTo, err := sr.lineEnd(min(segTo+streamOverlap, sr.end()) - 1)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", path, err)
		}
		last := sr.eof && segTo == sr.end()
		out = append(out, s.segmentFindings(path, sr, segFrom, segTo, winTo, last, only)...)
		if last {
			break
		}
		sr.keepBefore(segTo)
		segFrom = segTo
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Line != out[j].Line {
			return out[i].Line < out[j].Line
		}
		return out[i].Start < out[j].Start
	})
	return out, nil
}

// segmentReader holds the part of a streamed file that is still scanned: buf is the file from
// offset base on, which starts on line.
type segmentReader struct {
	br   *bufio.Reader
	buf  []byte
	base int
	line int
	eof  bool
}

// end is the offset just past what has been read.
func (sr *segmentReader) end() int { return sr.base + len(sr.buf) }

// fill reads on until the file is held up to offset upTo, or ends.
func (sr *segmentReader) fill(upTo int) error {
	for !sr.eof && sr.end() < upTo {
		chunk := make([]byte, 1<<20)
		n, err := io.ReadFull(sr.br, chunk)
		sr.buf = append(sr.buf, chunk[:n]...)
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			sr.eof = true
		} else if err != nil {
			return err
		}
	}
	return nil
}

// lineEnd returns the offset just after the newline at or after off (or the end of the
// file), reading on while the line lasts: a segment never ends inside a line.
func (sr *segmentReader) lineEnd(off int) (int, error) {
	for {
		if off-sr.base < len(sr.buf) {
			if i := bytes.IndexByte(sr.buf[off-sr.base:], '\n'); i >= 0 {
				return off + i + 1, nil
			}
		}
		if sr.eof {
			return sr.end(), nil
		}
		off = max(off, sr.end())
		if err := sr.fill(sr.end() + 1<<20); err != nil {
			return 0, err
		}
	}
}

// keepBefore drops what lies more than streamOverlap bytes before segTo, keeping from a line
// start.
func (sr *segmentReader) keepBefore(segTo int) {
	keepFrom := segTo - streamOverlap
	if keepFrom <= sr.base {
		return
	}
	if i := bytes.IndexByte(sr.buf[keepFrom-sr.base:segTo-sr.base], '\n'); i >= 0 {
		keepFrom += i + 1
	} else {
		keepFrom = segTo
	}
	sr.line += bytes.Count(sr.buf[:keepFrom-sr.base], []byte{'\n'})
	sr.buf = append([]byte(nil), sr.buf[keepFrom-sr.base:]...)
	sr.base = keepFrom
}

// segmentFindings scans the window up to winTo and keeps the findings that start in the segment
// [segFrom, segTo): the overlap's belong to the next segment, unless this is the last.
func (s *Detector) segmentFindings(path string, sr *segmentReader, segFrom, segTo, winTo int, last bool, only []int) []scanner.SecretFinding {
	buf, base, line := sr.buf, sr.base, sr.line
	window := buf[:winTo-base]
	segLine := line + bytes.Count(buf[:segFrom-base], []byte{'\n'})
	nextLine := segLine + bytes.Count(buf[segFrom-base:segTo-base], []byte{'\n'})
	text := window
	if only != nil {
		text = scanner.OnlyLines(window, shiftLines(only, line))
	}
	lineStart := lineOffsets(text)
	var out []scanner.SecretFinding
	for _, f := range s.detect(path, text, line) {
		if f.StartLine < segLine || !last && f.StartLine >= nextLine {
			continue // another segment's
		}
		if !s.keep(f) {
			continue
		}
		sf := locate(text, lineStart, shiftFinding(f, line))
		sf.Line, sf.Start, sf.End = f.StartLine, sf.Start+base, sf.End+base
		out = append(out, sf)
	}
	return out
}

// shiftLines turns file line numbers into line numbers of a window starting at line first.
func shiftLines(only []int, first int) []int {
	out := make([]int, 0, len(only))
	for _, l := range only {
		if l >= first {
			out = append(out, l-first+1)
		}
	}
	return out
}

// shiftFinding makes a finding's lines relative to a window starting at line first, for locate.
func shiftFinding(f report.Finding, first int) report.Finding {
	g := f
	g.StartLine -= first - 1
	g.EndLine -= first - 1
	return g
}
