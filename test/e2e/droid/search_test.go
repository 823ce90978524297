package droid

import (
	"testing"

	"github.com/mbguard/mbguard/test/e2e/e2eproject"
	"github.com/mbguard/mbguard/test/e2e/fakemodel"
)

// Search is Droid's Grep with no path (the whole project), showing the matching lines.
func (s session) Search(pattern string) fakemodel.Step {
	return fakemodel.Call("Grep", map[string]any{"pattern": pattern, "output_mode": "content", "line_numbers": true})
}

// TestDroidSecretSearchNeverReachesModel: a search of the whole project for a bank token's
// prefix, by Grep and by `grep -rn .` through Execute, is refused before it runs (Droid cannot
// hide a tool's output afterwards), naming the line and how to search without the bank; the
// token reaches the model in no request.
func TestDroidSecretSearchNeverReachesModel(t *testing.T) { e2eproject.SecretSearch(t, driver{}) }
