package shell

// The archiver family: creating an archive writes it, extracting writes entries whose
// names are inside the archive (a tree below -C/-d DIR), compressing replaces the file.
func archiverCommands() []command {
	return []command{
		{names: "tar bsdtar gtar", family: "archivers", does: "x writes the tree below -C DIR, c writes the archive", handle: always(func(w *walker, c *invocation) {
			w.tar(c.args, c.e)
		})},
		{names: "unzip", family: "archivers", does: "reads the archive, writes the tree below -d DIR",
			flags: flagSpec{short: "dP", long: []string{"--password"}}, handle: always((*walker).unzip)},
		{names: "gzip gunzip bzip2 bunzip2 xz unxz zstd unzstd lz4 brotli", family: "archivers", does: "replaces its operands, unless -c/-l/-t; -c carries them to stdout",
			flags: flagSpec{short: "S", long: []string{"--suffix"}}, handle: always(func(w *walker, c *invocation) {
				opts, ops := parseArgs(c.args, c.spec.flags)
				if hasOpt(opts, "-c", "--stdout", "--to-stdout") {
					w.carryAll(ops, c.name, c.e) // gzip -c x | zcat shows x
					return
				}
				if hasOpt(opts, "-l", "--list", "-t", "--test") {
					return
				}
				if !namesFile(ops) {
					return // a filter: stdin to stdout (gzip -c x | gunzip)
				}
				w.writeAll(ops, c.name, c.e)
			})},
		{names: "zip", family: "archivers", does: "writes the archive; -m removes what it stored",
			flags: flagSpec{short: "bnitx", long: []string{"--temp-path", "--suffixes"}}, handle: always(func(w *walker, c *invocation) {
				opts, ops := parseArgs(c.args, c.spec.flags)
				w.res.Write = true
				if len(ops) > 0 {
					w.writeArg(ops[0], c.name, c.e)
					w.carryAll(ops[1:], c.name, c.e)
					if hasOpt(opts, "-m", "--move") {
						// zip -m deletes the files it stored
						w.writeAll(ops[1:], "zip -m", c.e)
					}
				}
			})},
		{names: "7z 7za 7zr", family: "archivers", does: "x writes the tree below -oDIR, a writes the archive", handle: always(func(w *walker, c *invocation) {
			w.sevenZip(c.args, c.e)
		})},
		{names: "cpio", family: "archivers", does: "-i writes the working directory, -p the destination",
			flags: flagSpec{short: "EFHIOMRC", long: []string{"--file", "--format", "--pattern-file", "--owner"}}, handle: always(func(w *walker, c *invocation) {
				opts, ops := parseArgs(c.args, c.spec.flags)
				switch {
				case hasOpt(opts, "-i", "--extract"):
					w.writeDir(arg{s: ".", exact: true}, "cpio -i", c.e)
				case hasOpt(opts, "-p", "--pass-through") && len(ops) > 0:
					w.writeDir(ops[len(ops)-1], "cpio -p", c.e)
				}
			})},
	}
}

// namesFile reports whether a compressor's operands name a file: none, or only "-" (stdin),
// make it a filter from stdin to stdout, which replaces nothing.
func namesFile(ops []arg) bool {
	for _, a := range ops {
		if !a.exact || a.s != "-" {
			return true
		}
	}
	return false
}
