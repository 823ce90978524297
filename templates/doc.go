// Package templates holds the v7.1 memory-bank templates, embedded in the binary and parsed
// once. init writes them out; upgrade and migrate take their fixed sections from them.
package templates
