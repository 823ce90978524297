package lifecycle

import (
	"bytes"
	"strings"
)

// Line ends: a file mbguard builds or upgrades keeps the line ends the user's file has. build.go
// (migrate, wrapping an unmarked MEMORY.md) and upgrade.go used to each say this their own way,
// and drifted: upgrade left an empty line where it removed a stray template marker from a CRLF
// file. Both go through the three functions below; TestLineEndsDoNotChangeTheResult holds them.

// usesCRLF reports whether most of b's lines end in "\r\n".
func usesCRLF(b []byte) bool {
	return bytes.Count(b, []byte("\r\n"))*2 > bytes.Count(b, []byte("\n"))
}

// nlOf is the line end a file that uses crlf gets.
func nlOf(crlf bool) string {
	if crlf {
		return "\r\n"
	}
	return "\n"
}

// withLineEnds returns s, written with "\n", with "\r\n" line ends when crlf; a line that has
// "\r\n" already keeps it (never "\r\r\n").
func withLineEnds(s string, crlf bool) string {
	if !crlf {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\n", "\r\n"), "\r\r\n", "\r\n")
}

// markSpan is what removing the template marker on line n of b (line starts in lines) takes:
// the whole line with its line end ("\r\n" or "\n") when it holds nothing else, else the
// marker alone.
func markSpan(b []byte, lines []int, n int) (at, end int) {
	ls, le := lines[n-1], lineEnd(b, lines, n)
	text := string(b[ls:le])
	k := strings.Index(text, "<!--")
	m := strings.Index(text[k:], "-->") + k + 3
	if strings.TrimSpace(text[:k]+text[m:]) != "" {
		return ls + k, ls + m
	}
	full := le
	if full < len(b) && b[full] == '\r' {
		full++
	}
	if full < len(b) && b[full] == '\n' {
		full++
	}
	return ls, full
}
