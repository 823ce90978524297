package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/mbguard/mbguard/scanner"
	"github.com/zricethezav/gitleaks/v8/config"
)

// The scan cache names gitleaks' default rules by scanner.DefaultRulesSum: a stale sum would
// answer new rules from findings of the old ones.
func TestDefaultRulesSum(t *testing.T) {
	sum := sha256.Sum256([]byte(config.DefaultConfig))
	if got := hex.EncodeToString(sum[:]); got != scanner.DefaultRulesSum {
		t.Fatalf("gitleaks' default rules changed: set scanner.DefaultRulesSum (scanner/cache.go) to %q", got)
	}
}
