package shell

// The network family: downloads write the file they are told to or one named after the
// URL; copies from or to other hosts write their local destination.
func networkCommands() []command {
	return []command{
		{names: "curl", family: "network", does: "writes -o FILE, -O a file named after the URL, -D/-c files", handle: always(func(w *walker, c *invocation) {
			w.curl(c.args, c.e)
		})},
		{names: "wget", family: "network", does: "writes -O FILE, a file named after the URL, -r a tree", handle: always(func(w *walker, c *invocation) {
			w.wget(c.args, c.e)
		})},
		{names: "rsync scp", family: "network", does: "writes the local destination; --remove-source-files the sources", handle: always(func(w *walker, c *invocation) {
			w.remoteCopy(c.name, c.args, c.e)
		})},
	}
}
