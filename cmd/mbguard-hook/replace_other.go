//go:build !unix

package main

// replace: Windows has no exec; handOver runs mbguard as a child.
func replace(full string, args []string) {}
