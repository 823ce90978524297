package main

// withUserHome returns getenv with HOME answered from %USERPROFILE% (else %HOMEDRIVE%%HOMEPATH%)
// when HOME is unset or empty: PowerShell and cmd on Windows set no HOME, and every user-level
// path mbguard builds (the hosts' settings, ~/.config, the git hook's global settings) starts
// there. Go's os.UserHomeDir reads the same variables on Windows; this is the one place the
// CLI's own reads of HOME do.
func withUserHome(getenv func(string) string) func(string) string {
	return func(k string) string {
		v := getenv(k)
		if k != "HOME" || v != "" {
			return v
		}
		if p := getenv("USERPROFILE"); p != "" {
			return p
		}
		if d, p := getenv("HOMEDRIVE"), getenv("HOMEPATH"); d != "" && p != "" {
			return d + p
		}
		return ""
	}
}
