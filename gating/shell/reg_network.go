package shell

// The network family: downloads write the file they are told to or one named after the
// URL; copies from or to other hosts write their local destination.
func networkCommands() []command {
	return []command{
		{names: "curl", family: "network", does: "writes -o FILE, -O a file named after the URL, -D/-c files", flags: flagSpec{
			short: "bcCdDeEFHKmoPQrtTuUwxXyYzA",
			long: []string{"--output", "--output-dir", "--dump-header", "--cookie-jar", "--data", "--data-raw",
				"--data-binary", "--data-urlencode", "--header", "--request", "--user-agent", "--url", "--cookie",
				"--form", "--upload-file", "--config", "--max-time", "--connect-timeout", "--retry", "--user",
				"--proxy", "--write-out", "--referer", "--cert", "--key", "--cacert", "--range", "--stderr",
				"--trace", "--trace-ascii", "--etag-save", "--etag-compare", "--json", "--resolve", "--proto",
				"--retry-delay", "--retry-max-time", "--limit-rate", "--max-filesize", "--interface", "--unix-socket"},
		}, handle: always((*walker).curl)},
		{names: "wget", family: "network", does: "writes -O FILE, a file named after the URL, -r a tree", flags: flagSpec{
			short: "OoaPeUTtwQlDARIXiB",
			long: []string{"--output-document", "--output-file", "--append-output", "--directory-prefix",
				"--user-agent", "--timeout", "--tries", "--wait", "--quota", "--level", "--domains",
				"--accept", "--reject", "--include-directories", "--exclude-directories", "--input-file",
				"--base", "--header", "--post-data", "--post-file", "--user", "--password", "--execute"},
		}, handle: always((*walker).wget)},
		{names: "rsync", family: "network", does: "writes the local destination; --remove-source-files the sources, --log-file its log",
			flags: flagSpec{short: "efTBM", long: []string{"--rsh", "--filter", "--exclude", "--include", "--temp-dir", "--partial-dir", "--backup-dir", "--compare-dest", "--link-dest", "--copy-dest", "--exclude-from", "--include-from", "--files-from", "--password-file", "--chmod", "--chown", "--timeout", "--port", "--rsync-path", "--log-file"}}, handle: always((*walker).remoteCopy)},
		{names: "scp", family: "network", does: "writes the local destination",
			flags: flagSpec{short: "cFiJlPoSD"}, handle: always((*walker).remoteCopy)},
	}
}
