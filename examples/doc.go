// Package examples holds the example memory banks and embeds the demo project, so that
// `mbguard demo` works from any directory, not only inside the source checkout.
package examples
