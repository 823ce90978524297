package hooks

// InstallOptions says where and how `mbguard install` writes its files.
type InstallOptions struct {
	Root      string // repository root (absolute)
	GitDir    string // the repository's git directory
	CommonDir string // the git directory shared by worktrees
	Home      string // the user's home, for --global
	Global    bool   // install into the user's global host configuration instead of the project
	Uninstall bool   // remove only mbguard's entries, restoring what was there before
	Husky     bool   // add the check to .husky/pre-commit instead of .git/hooks
	// Binary is how hooks call mbguard: "mbguard" when it is on PATH, else an absolute path.
	Binary string
}

// Change is one line of what an install did, for the user.
type Change struct {
	Path   string // the file, relative to Root when inside it
	Action string // created, updated, unchanged, removed, kept (edited by you), skipped
	Note   string // optional: why, or the next step
}
