package qwen

import (
	"github.com/mbguard/mbguard/test/e2e/fakemodel"
)

// Search is Qwen's grep_search with no path: the whole project.
func (s session) Search(pattern string) fakemodel.Step {
	return fakemodel.Call("grep_search", map[string]any{"pattern": pattern})
}
