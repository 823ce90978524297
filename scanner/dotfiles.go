package scanner

// DefaultAllowedFiles are the non-Markdown names allowed in memory-bank/ without configuration:
// git's own files, which the tools that make a bank (and users) keep there for themselves.
var DefaultAllowedFiles = []string{".gitignore", ".gitattributes"}
