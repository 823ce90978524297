package qwen

import (
	"testing"

	"github.com/mbguard/mbguard/test/e2e/e2eproject"
	"github.com/mbguard/mbguard/test/e2e/fakemodel"
)

// Search is Qwen's grep_search with no path: the whole project.
func (s session) Search(pattern string) fakemodel.Step {
	return fakemodel.Call("grep_search", map[string]any{"pattern": pattern})
}

// TestQwenSecretSearchNeverReachesModel: a search of the whole project for a bank token's
// prefix, by grep_search and by `grep -rn .`, is refused before it runs (Qwen cannot hide a
// tool's output afterwards), naming the line and how to search without the bank; the token
// reaches the model in no request.
func TestQwenSecretSearchNeverReachesModel(t *testing.T) { e2eproject.SecretSearch(t, driver{}) }
