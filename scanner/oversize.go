package scanner

import "fmt"

// tooLargeMessage names the exact size: "10.4 MB", or bytes where one decimal would read as
// the limit itself.
func tooLargeMessage(size int64) string {
	mb := fmt.Sprintf("%.1f MB", float64(size)/(1<<20))
	if mb == fmt.Sprintf("%.1f MB", float64(MaxFileSize)/(1<<20)) {
		mb = fmt.Sprintf("%d bytes", size)
	}
	return fmt.Sprintf("is %s, over the %d MB limit (%d bytes); not read, so not checked", mb, MaxFileSize>>20, MaxFileSize)
}

// secretFix is the fix hint of a secret finding: what to do, and the fingerprint that
// .gitleaksignore takes for a false positive (path, rule and line; never the secret).
func secretFix(path string, s SecretFinding) string {
	return fmt.Sprintf("remove the secret, rotate it (it may be exposed already), and keep it out of memory-bank/; "+
		"for a false positive add gitleaks:allow to the line, or add this line to .gitleaksignore: %s:%s:%d", path, s.Rule, s.Line)
}
