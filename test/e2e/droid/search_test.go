package droid

import (
	"github.com/mbguard/mbguard/test/e2e/fakemodel"
)

// Search is Droid's Grep with no path (the whole project), showing the matching lines.
func (s session) Search(pattern string) fakemodel.Step {
	return fakemodel.Call("Grep", map[string]any{"pattern": pattern, "output_mode": "content", "line_numbers": true})
}
