//go:build !linux

package outcome

import "errors"

// tracker is Linux's inotify tracker; elsewhere every check walks the bank.
type tracker struct{}

var errNoTrack = errors.New("no inotify")

func newTracker(root, bank string) (*tracker, error)              { return nil, errNoTrack }
func (t *tracker) close()                                         {}
func (t *tracker) watch(rel string, dir bool) error               { return errNoTrack }
func (t *tracker) drain(paths, trees map[string]bool) (full bool) { return true }

func (t *tracker) prune(disk map[string]Entry) {}

const trackSupported = false
