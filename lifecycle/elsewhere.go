package lifecycle

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mbguard/mbguard/bank"
)

// Banks kept outside memory-bank/ by other tools. mbguard does not move them itself yet; it
// recognises them so that init never starts a second, empty bank beside one, and says how to
// bring them where migrate takes over.
const (
	cursorRulesBank = ".cursor/rules/memory-bank" // Cursor rules (.mdc, with front matter)
	hiddenBank      = ".memory-bank"              // other memory-bank skills
)

// bankElsewhere looks for a memory bank in one of those places when memory-bank/ has none.
// It returns what it found and the commands that bring it to memory-bank/, or "".
func bankElsewhere(root string) string {
	if files := listFiles(filepath.Join(root, filepath.FromSlash(cursorRulesBank)), ".mdc"); len(files) > 0 {
		ex := files[0]
		return fmt.Sprintf("found a memory bank kept as Cursor rules in %s/ (%d .mdc file(s): %s), which mbguard migrate does not move itself. Nothing changed. "+
			"Move each file to memory-bank/ as Markdown, front matter and all (e.g. git mv %s/%s memory-bank/%s.md), commit, then run mbguard migrate",
			cursorRulesBank, len(files), shortList(files), cursorRulesBank, ex, strings.TrimSuffix(ex, ".mdc"))
	}
	if files := listFiles(filepath.Join(root, hiddenBank), ".md"); len(files) > 0 {
		return fmt.Sprintf("found a memory bank in %s/ (%d Markdown file(s): %s), which mbguard migrate does not move itself. Nothing changed. "+
			"Rename the folder with its history (git mv %s %s), commit, then run mbguard migrate",
			hiddenBank, len(files), shortList(files), hiddenBank, bank.Dir)
	}
	return ""
}

// listFiles names the files directly in dir with the extension ext, sorted.
func listFiles(dir, ext string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		if e.Type().IsRegular() && strings.EqualFold(filepath.Ext(e.Name()), ext) {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out
}

func shortList(s []string) string {
	if len(s) > 4 {
		return strings.Join(s[:4], ", ") + fmt.Sprintf(" and %d more", len(s)-4)
	}
	return strings.Join(s, ", ")
}
