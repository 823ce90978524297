package stale

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mbguard/mbguard/internal/fsutil"
)

// Apply rewrites the renamed paths in the notes under root, one atomic write per note, and
// returns the fixes it made. A fix whose old text is no longer on its line (the note changed
// since the check) is left out, never guessed.
func Apply(root string, fixes []Fix) ([]Fix, error) {
	byNote := map[string][]Fix{}
	var order []string
	for _, f := range fixes {
		if byNote[f.Path] == nil {
			order = append(order, f.Path)
		}
		byNote[f.Path] = append(byNote[f.Path], f)
	}
	var done []Fix
	for _, note := range order {
		name := filepath.Join(root, filepath.FromSlash(note))
		fi, err := os.Stat(name)
		if err != nil {
			return done, fmt.Errorf("reading %s: %w", note, err)
		}
		content, err := os.ReadFile(name)
		if err != nil {
			return done, fmt.Errorf("reading %s: %w", note, err)
		}
		lines := bytes.SplitAfter(content, []byte{'\n'})
		var made []Fix
		for _, f := range byNote[note] {
			if f.Line < 1 || f.Line > len(lines) {
				continue
			}
			if l, ok := replacePath(lines[f.Line-1], f.Old, f.New); ok {
				lines[f.Line-1] = l
				made = append(made, f)
			}
		}
		if len(made) == 0 {
			continue
		}
		if err := fsutil.WriteFileAtomic(name, bytes.Join(lines, nil), fi.Mode().Perm()); err != nil {
			return done, fmt.Errorf("writing %s: %w", note, err)
		}
		done = append(done, made...)
	}
	return done, nil
}

// replacePath replaces every occurrence of old in line that stands as a whole path (not
// part of a longer one).
func replacePath(line []byte, old, new string) ([]byte, bool) {
	var out []byte
	changed := false
	rest := line
	for {
		i := bytes.Index(rest, []byte(old))
		if i < 0 {
			break
		}
		end := i + len(old)
		before := byte(' ')
		if i > 0 {
			before = rest[i-1]
		} else if len(out) > 0 {
			before = out[len(out)-1]
		}
		after := byte(' ')
		if end < len(rest) {
			after = rest[end]
		}
		if pathByte(before) || pathByte(after) && after != '.' {
			out = append(out, rest[:end]...)
			rest = rest[end:]
			continue
		}
		out = append(append(out, rest[:i]...), new...)
		rest = rest[end:]
		changed = true
	}
	return append(out, rest...), changed
}

func pathByte(c byte) bool {
	return c == '/' || c == '_' || c == '-' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
