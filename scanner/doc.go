// Package scanner is mbguard's commit-time check: block markers and template versions (through
// bank, the one shared parser), secrets (gitleaks as a library), and stray files under
// memory-bank/. Every problem is a Finding value; errors are only for a check that could not
// run. Sources read the index (Staged) or the working tree (Disk); Check fans files out over
// all cores; WriteText, WriteJSON and WriteSARIF print the result.
package scanner
