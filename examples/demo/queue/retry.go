//go:build ignore

// The demo project's only code file; the build constraint keeps it out of mbguard's module.

package queue

// Retry re-enqueues a failed payment.
func Retry(id string) error { return nil }
