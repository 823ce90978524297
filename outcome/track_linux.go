//go:build linux

package outcome

import (
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"unsafe"
)

// tracker is a private inotify instance on memory-bank/ for a resident Guard (serve, watch):
// it tells a check which paths may have changed since the last one, so the check lstats
// those instead of the whole bank.
//
// Why "no event" can be trusted: inotify queues an event inside the system call that makes
// the change (write, truncate, chmod, link, rename, unlink…), before that call returns. The
// tracker's file descriptor is read by the check itself, without blocking, until it is
// empty: every change that completed before that read is in what was read. A tool call has
// finished before its post event is sent, so its changes are all there. (fsnotify's Go
// watcher delivers through a goroutine and a channel; that gives no such proof, which is why
// the tracker has its own descriptor.)
//
// What is watched: the repository root (memory-bank/ itself appearing, going, being
// replaced), every folder of the bank (entries created, deleted, moved, written, chmodded),
// and every regular file on its own. A watch on a file is a watch on its inode, so a write
// through a hard link made outside the bank, and the link itself (the link count is an
// attribute), raise an event too, which a folder watch would not see.
//
// What inotify does not see, and how it is covered: stores through a shared mmap raise no
// event (opening the file for writing raises IN_CLOSE_WRITE when it is closed, so a mapping
// made during the call is seen); mounts raise none. A queue overflow, an error, or an event
// on memory-bank/ itself makes the next check walk everything; so does every
// fullEvery-th check, as a backstop.
type tracker struct {
	fd     int
	root   string // absolute repository root
	bank   string // "memory-bank"
	rootWd int32
	wds    map[int32]watched
	buf    []byte
}

type watched struct {
	rel string
	dir bool
}

const (
	dirMask  = syscall.IN_CREATE | syscall.IN_DELETE | syscall.IN_MOVED_FROM | syscall.IN_MOVED_TO | syscall.IN_MODIFY | syscall.IN_ATTRIB | syscall.IN_CLOSE_WRITE | syscall.IN_DELETE_SELF | syscall.IN_MOVE_SELF
	fileMask = syscall.IN_MODIFY | syscall.IN_ATTRIB | syscall.IN_CLOSE_WRITE | syscall.IN_DELETE_SELF | syscall.IN_MOVE_SELF
	rootMask = syscall.IN_CREATE | syscall.IN_DELETE | syscall.IN_MOVED_FROM | syscall.IN_MOVED_TO | syscall.IN_ATTRIB | syscall.IN_DELETE_SELF | syscall.IN_MOVE_SELF
)

// errNoTrack says tracking is off: the check walks.
var errNoTrack = errors.New("no inotify")

func newTracker(root, bank string) (*tracker, error) {
	fd, err := syscall.InotifyInit1(syscall.IN_CLOEXEC | syscall.IN_NONBLOCK)
	if err != nil {
		return nil, err
	}
	t := &tracker{fd: fd, root: root, bank: bank, wds: map[int32]watched{}, buf: make([]byte, 64<<10)}
	wd, err := syscall.InotifyAddWatch(fd, root, rootMask|syscall.IN_ONLYDIR)
	if err != nil {
		syscall.Close(fd)
		return nil, err
	}
	t.rootWd = int32(wd)
	return t, nil
}

func (t *tracker) close() {
	if t != nil && t.fd >= 0 {
		syscall.Close(t.fd)
		t.fd = -1
	}
}

// watch adds (or refreshes) the watch on rel, a folder or a regular file of the bank. A path
// gone meanwhile is skipped: its own events tell. Any other error (the inotify watch limit)
// ends tracking.
func (t *tracker) watch(rel string, dir bool) error {
	mask := uint32(fileMask | syscall.IN_DONT_FOLLOW)
	if dir {
		mask = dirMask | syscall.IN_DONT_FOLLOW | syscall.IN_ONLYDIR
	}
	wd, err := syscall.InotifyAddWatch(t.fd, filepath.Join(t.root, filepath.FromSlash(rel)), mask)
	switch {
	case err == nil:
		t.wds[int32(wd)] = watched{rel: rel, dir: dir}
		return nil
	case errors.Is(err, syscall.ENOENT), errors.Is(err, syscall.ENOTDIR), errors.Is(err, syscall.ELOOP):
		return nil
	}
	return err
}

// drain reads every queued event without blocking and adds the paths they name to paths
// (one entry) and trees (a folder and everything below it). full reports that the events
// cannot be trusted to name every change (overflow, read error, memory-bank/ itself).
func (t *tracker) drain(paths, trees map[string]bool) (full bool) {
	for {
		n, err := syscall.Read(t.fd, t.buf)
		if err == syscall.EINTR {
			continue
		}
		if err == syscall.EAGAIN {
			return full
		}
		if err != nil || n <= 0 {
			return true
		}
		for off := 0; off+syscall.SizeofInotifyEvent <= n; {
			ev := (*syscall.InotifyEvent)(unsafe.Pointer(&t.buf[off]))
			name := ""
			if ev.Len > 0 {
				b := t.buf[off+syscall.SizeofInotifyEvent : off+syscall.SizeofInotifyEvent+int(ev.Len)]
				if i := strings.IndexByte(string(b), 0); i >= 0 {
					b = b[:i]
				}
				name = string(b)
			}
			off += syscall.SizeofInotifyEvent + int(ev.Len)
			if t.event(ev.Wd, ev.Mask, name, paths, trees) {
				full = true
			}
		}
	}
}

// event files one event; it reports whether a full walk is needed.
func (t *tracker) event(wd int32, mask uint32, name string, paths, trees map[string]bool) bool {
	if mask&syscall.IN_Q_OVERFLOW != 0 {
		return true
	}
	if wd == t.rootWd {
		return name == t.bank || mask&(syscall.IN_DELETE_SELF|syscall.IN_MOVE_SELF|syscall.IN_IGNORED) != 0
	}
	w, ok := t.wds[wd]
	if !ok {
		return false // a watch already removed
	}
	if mask&syscall.IN_IGNORED != 0 {
		delete(t.wds, wd)
		return false
	}
	switch {
	case w.dir && name != "":
		p := w.rel + "/" + name
		if mask&syscall.IN_ISDIR != 0 && mask&(syscall.IN_CREATE|syscall.IN_MOVED_TO|syscall.IN_MOVED_FROM|syscall.IN_DELETE) != 0 {
			trees[p] = true
		} else {
			paths[p] = true
		}
	case w.dir && mask&(syscall.IN_DELETE_SELF|syscall.IN_MOVE_SELF) != 0:
		if w.rel == t.bank {
			return true
		}
		trees[w.rel] = true
	default:
		paths[w.rel] = true
	}
	return false
}

// prune removes the watches of inodes no longer in the bank (moved out, e.g. into the
// quarantine): after a full walk has re-armed every entry, a watch whose path the walk did not
// find watches something else.
func (t *tracker) prune(disk map[string]Entry) {
	for wd, w := range t.wds {
		if _, ok := disk[w.rel]; !ok {
			syscall.InotifyRmWatch(t.fd, uint32(wd))
			delete(t.wds, wd)
		}
	}
}

const trackSupported = true
