// Package proctab reads the process table: the one place mbguard looks at processes other
// than its own children (a process's parent, session, start time, name, executable and open
// files). Linux has it in /proc; elsewhere the table is unsupported and every read reports
// not ok, so callers fall back to what they do without it (see Table.Supported).
package proctab
