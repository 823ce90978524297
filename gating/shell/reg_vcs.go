package shell

// The version-control family: git (its subcommands are tables in tools.go), patch and
// apply_patch, which write the files their patch names.
func vcsCommands() []command {
	return []command{
		{names: "git", family: "vcs", does: "by subcommand: reads, writes the paths named, the whole tree, or unknown files",
			handle: always(func(w *walker, c *invocation) { w.git(c.args, c.e, c.depth) }),
			runs: func(w *walker, c *invocation) {
				// git apply and git am run the patches they are handed
				globals, sub := gitGlobals(c.args)
				if sub >= len(c.args) || c.args[sub].s != "apply" && c.args[sub].s != "am" {
					return
				}
				e := c.e
				for _, o := range globals { // the patch is read from where -C moved git
					if o.name == "-C" && o.has && (o.value.s != "" || !o.value.exact) {
						e = chdir(e, o.value)
					}
				}
				_, files := parseArgs(c.args[sub+1:], gitApplyFlags)
				for _, f := range files {
					w.addRun(f, "patch", "", e)
				}
			}},
		{names: "patch", family: "vcs", does: "writes the file it is handed, -o FILE, or the files named in the patch",
			flags: flagSpec{short: "pidoBDFrVYz", long: []string{"--strip", "--input", "--directory", "--output", "--prefix", "--ifdef", "--fuzz", "--reject-file", "--version-control", "--basename-prefix", "--suffix"}}, handle: always((*walker).patch)},
		{names: "apply_patch applypatch", family: "vcs", does: "writes the files its patch's headers name", handle: always(func(w *walker, c *invocation) {
			w.applyPatch(c.args, c.in, c.e)
		})},
	}
}
