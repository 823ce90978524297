package lifecycle

// The secret scans of these tests run in this process, with gitleaks, as in mbguard itself.
import _ "github.com/mbguard/mbguard/scanner/engine"
