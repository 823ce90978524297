package shell

import "strings"

// The build family: make runs the recipes of a Makefile, which a caller reads before the
// line is judged; make itself is judged by the paths it names.
func buildCommands() []command {
	return []command{
		{names: "make gmake", family: "build", does: "runs its Makefile's recipes (read before the line is judged)",
			runs: func(w *walker, c *invocation) {
				opts, ops := parseArgs(c.args, flagSpec{short: "CfIjlWo", long: []string{"--directory", "--file", "--makefile", "--include-dir", "--jobs", "--load-average", "--what-if", "--old-file"}})
				dir, file := "", ""
				for _, o := range opts {
					switch o.name {
					case "-C", "--directory":
						dir = o.value.s
					case "-f", "--file", "--makefile":
						file = o.value.s
					}
				}
				var targets []string
				for _, o := range ops {
					if !strings.Contains(o.s, "=") {
						targets = append(targets, o.s)
					}
				}
				me := c.e
				if dir != "" {
					d := *c.e
					d.cd(arg{s: dir, exact: true})
					me = &d
				}
				if file != "" {
					w.addRun(arg{s: file, exact: true}, "make", strings.Join(targets, " "), me)
					return
				}
				for _, f := range []string{"GNUmakefile", "makefile", "Makefile"} {
					w.addRun(arg{s: f, exact: true}, "make", strings.Join(targets, " "), me)
				}
			}},
	}
}
