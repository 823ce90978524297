package outcome

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/mbguard/mbguard/internal/repo"
)

// Quarantined is one quarantine entry: what one check undid, with the agent's bytes.
type Quarantined struct {
	ID      string   `json:"id"`
	Time    string   `json:"time"` // RFC 3339, UTC
	Session string   `json:"session,omitempty"`
	Host    string   `json:"host,omitempty"`
	Tool    string   `json:"tool,omitempty"`
	Call    string   `json:"call,omitempty"`
	Reason  string   `json:"reason"`
	Entries []QEntry `json:"entries"`
	// Damaged says why the entry's meta.json cannot be read (set by ListQuarantine, never
	// saved): its bytes are still in the entry's files/ folder.
	Damaged string `json:"damaged,omitempty"`
}

// QEntry is one path the agent changed. File names the bytes inside the entry's folder;
// it is empty when there were no bytes of the agent's to keep (a deletion, a mode change).
type QEntry struct {
	Path   string `json:"path"`
	Change string `json:"change"`
	Kind   Kind   `json:"kind,omitempty"`
	Mode   uint32 `json:"mode,omitempty"`
	Size   int64  `json:"size,omitempty"`
	File   string `json:"file,omitempty"`
	Target string `json:"target,omitempty"` // a symlink's target
	Why    string `json:"why"`
}

type quarantine struct {
	dir  string
	meta Quarantined
}

func (g *Guard) newQuarantine(c Call) (*quarantine, error) {
	now := g.o.Now().UTC()
	var rnd [3]byte
	rand.Read(rnd[:])
	id := now.Format("20060102-150405") + "-" + hex.EncodeToString(rnd[:])
	dir := filepath.Join(QuarantineDir(g.r), id)
	if err := os.MkdirAll(filepath.Join(dir, "files"), 0o700); err != nil {
		return nil, fmt.Errorf("making the quarantine: %w", err)
	}
	q := &quarantine{dir: dir, meta: Quarantined{ID: id, Time: now.Format(time.RFC3339), Session: c.Session,
		Host: c.Host, Tool: c.Tool, Call: c.ID, Reason: "undone after the tool call"}}
	// listed from the start: a crash before the final save leaves a visible entry
	_ = writeJSON(filepath.Join(dir, "meta.json"), q.meta, false)
	return q, nil
}

func whyText(ps []Problem) string {
	var s []string
	for _, p := range ps {
		t := p.Text
		if p.Line > 0 {
			t = fmt.Sprintf("line %d: %s", p.Line, t)
		}
		s = append(s, t)
	}
	return strings.Join(s, "; ")
}

func (q *quarantine) add(c *change, file, target string, why []Problem) {
	e := QEntry{Path: c.path, Change: c.what(), Why: whyText(why), File: file, Target: target}
	if c.d != nil {
		e.Kind, e.Mode, e.Size = c.d.Kind, uint32(c.d.Mode), c.d.Size
	}
	// meta.json is written when the entry is made and when the undo ends, not per path (that
	// was quadratic: 20,000 paths took minutes); bytes a crash in between leaves unlisted are
	// still shown, as damaged (ListQuarantine)
	q.meta.Entries = append(q.meta.Entries, e)
}

// keep stores bytes read from path (a file that stays where it is, such as the git config
// whose harmless keys are kept) in the quarantine.
func (q *quarantine) keep(path, what string, b []byte, why []Problem) {
	name := strconv.Itoa(len(q.meta.Entries))
	if os.WriteFile(filepath.Join(q.dir, "files", name), b, 0o600) != nil {
		name = ""
	}
	e := QEntry{Path: path, Change: what, Kind: KindFile, Size: int64(len(b)), Why: whyText(why)}
	if name != "" {
		e.File = "files/" + name
	}
	q.meta.Entries = append(q.meta.Entries, e)
}

// move puts the disk entry at abs into the quarantine: a rename when the git directory is on
// the same file system, else a copy and a removal. The entry is listed in meta.json before the
// bytes move, so a crash in between never leaves bytes the quarantine does not list.
func (q *quarantine) move(c *change, abs string, why []Problem) error {
	if c.d.Kind == KindOther {
		// a fifo, socket or device holds no bytes of the agent's; opening one could block
		q.add(c, "", "", why)
		if err := os.Remove(abs); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("removing %s: %w", c.path, err)
		}
		return nil
	}
	name := strconv.Itoa(len(q.meta.Entries))
	dst := filepath.Join(q.dir, "files", name)
	target := ""
	if c.d.Kind == KindSymlink {
		target = string(c.new)
	}
	q.add(c, "files/"+name, target, why)
	if err := os.Rename(abs, dst); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			q.meta.Entries = q.meta.Entries[:len(q.meta.Entries)-1] // gone already
			return nil
		}
		if err := copyOut(abs, dst, c.d.Kind); err != nil {
			return fmt.Errorf("moving %s to the quarantine: %w", c.path, err)
		}
		if err := os.Remove(abs); err != nil {
			return fmt.Errorf("moving %s to the quarantine: %w", c.path, err)
		}
	}
	return nil
}

func copyOut(src, dst string, k Kind) error {
	if k == KindSymlink {
		t, err := os.Readlink(src)
		if err != nil {
			return err
		}
		return os.Symlink(t, dst)
	}
	if k != KindFile {
		return os.WriteFile(dst, nil, 0o600) // a fifo or device has no bytes to keep
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func (q *quarantine) save() error {
	return writeJSON(filepath.Join(q.dir, "meta.json"), q.meta, true)
}

// ListQuarantine returns the quarantine entries, oldest first.
func ListQuarantine(r repo.Repo) ([]Quarantined, error) {
	dir := QuarantineDir(r)
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the quarantine: %w", err)
	}
	var out []Quarantined
	for _, e := range ents {
		var q Quarantined
		ok, err := readJSON(filepath.Join(dir, e.Name(), "meta.json"), &q)
		if err != nil || ok && q.ID != e.Name() {
			// listed, not hidden: its bytes are still there, and only the user can decide
			out = append(out, Quarantined{ID: e.Name(), Damaged: damagedText(r, e.Name())})
			continue
		}
		if !ok {
			continue
		}
		listed := 0
		for _, qe := range q.Entries {
			if qe.File != "" {
				listed++
			}
		}
		if fs, _ := os.ReadDir(filepath.Join(dir, e.Name(), "files")); len(fs) > listed {
			q.Damaged = fmt.Sprintf("holds %d files its meta.json does not list (mbguard stopped during an undo); they are in %s",
				len(fs)-listed, filepath.Join(dir, e.Name(), "files"))
		}
		out = append(out, q)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// CountQuarantine is how many quarantine entries exist (for status and doctor).
func CountQuarantine(r repo.Repo) int {
	qs, _ := ListQuarantine(r)
	return len(qs)
}

func validID(id string) bool {
	return id != "" && !strings.ContainsAny(id, `/\`) && id != "." && id != ".."
}

// Last names the newest quarantine entry wherever an id is asked for.
const Last = "last"

// ErrRefused marks what could not be done as asked though the request was well formed: an
// empty quarantine, an entry that does not exist, a restore over existing files. The CLI
// exits 1 for it, not 2 (usage).
var ErrRefused = errors.New("refused")

type refusal string

func (r refusal) Error() string      { return string(r) }
func (refusal) Is(target error) bool { return target == ErrRefused }

// GetQuarantine reads one entry; id Last is the newest.
func GetQuarantine(r repo.Repo, id string) (Quarantined, error) {
	var q Quarantined
	if id == Last {
		qs, err := ListQuarantine(r)
		if err != nil {
			return q, err
		}
		if len(qs) == 0 {
			return q, refusal("the quarantine is empty: nothing was undone (mbguard quarantine list shows entries when there are some)")
		}
		if q := qs[len(qs)-1]; q.Damaged != "" {
			return q, errors.New(q.Damaged)
		}
		return qs[len(qs)-1], nil
	}
	if !validID(id) {
		return q, fmt.Errorf("%q is not a quarantine id (run mbguard quarantine list)", id)
	}
	ok, err := readJSON(filepath.Join(QuarantineDir(r), id, "meta.json"), &q)
	if err != nil || ok && q.ID != id {
		return q, errors.New(damagedText(r, id))
	}
	if !ok {
		return q, refusal(fmt.Sprintf("no quarantine entry %q (run mbguard quarantine list)", id))
	}
	return q, nil
}

// ReadQuarantined returns the bytes kept for one path of an entry (nil when none were kept).
func ReadQuarantined(r repo.Repo, q Quarantined, e QEntry) ([]byte, error) {
	if e.File == "" || e.Kind != KindFile && e.Kind != KindSymlink {
		return nil, nil
	}
	p := filepath.Join(QuarantineDir(r), q.ID, filepath.FromSlash(e.File))
	if e.Kind == KindSymlink {
		t, err := os.Readlink(p)
		return []byte(t), err
	}
	return os.ReadFile(p)
}

// RestoreQuarantine puts an entry's bytes back at their original paths: a human's decision,
// which the next check then takes as a change made between tool calls. A path that exists
// is overwritten only when force is set. The entry is removed once everything is back.
func RestoreQuarantine(r repo.Repo, id string, force bool) ([]string, error) {
	q, err := GetQuarantine(r, id)
	if err != nil {
		return nil, err
	}
	id = q.ID
	var exist []string
	for _, e := range q.Entries {
		if e.File == "" {
			continue
		}
		if !strings.HasPrefix(e.Path, "memory-bank/") || strings.Contains(e.Path, "..") {
			return nil, fmt.Errorf("quarantine entry %s names %q, outside memory-bank/; restore it by hand", id, e.Path)
		}
		if _, err := os.Lstat(filepath.Join(r.Root, filepath.FromSlash(e.Path))); err == nil {
			exist = append(exist, e.Path)
		}
	}
	if len(exist) > 0 && !force {
		return nil, refusal(fmt.Sprintf("%s exists; nothing was restored: move it away or run mbguard quarantine restore --force %s", strings.Join(exist, ", "), id))
	}
	var done []string
	for _, e := range q.Entries {
		if e.File == "" {
			continue
		}
		if err := restoreEntry(r, id, e); err != nil {
			return done, err
		}
		done = append(done, e.Path)
	}
	return done, os.RemoveAll(filepath.Join(QuarantineDir(r), id))
}

// restoreEntry moves (or copies) one entry's bytes from quarantine id back to its path.
func restoreEntry(r repo.Repo, id string, e QEntry) error {
	dst := filepath.Join(r.Root, filepath.FromSlash(e.Path))
	src := filepath.Join(QuarantineDir(r), id, filepath.FromSlash(e.File))
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return fmt.Errorf("restoring %s: %w", e.Path, err)
	}
	os.Remove(dst)
	if err := os.Rename(src, dst); err != nil {
		if err := copyOut(src, dst, e.Kind); err != nil {
			return fmt.Errorf("restoring %s: %w", e.Path, err)
		}
	}
	if e.Kind == KindFile && e.Mode != 0 {
		os.Chmod(dst, os.FileMode(e.Mode))
	}
	return nil
}

// DropQuarantine deletes an entry and its bytes for good, a damaged one too.
func DropQuarantine(r repo.Repo, id string) error {
	if id != Last && validID(id) {
		if fi, err := os.Stat(filepath.Join(QuarantineDir(r), id)); err == nil && fi.IsDir() {
			return os.RemoveAll(filepath.Join(QuarantineDir(r), id))
		}
	}
	q, err := GetQuarantine(r, id)
	if err != nil {
		return err
	}
	return os.RemoveAll(filepath.Join(QuarantineDir(r), q.ID))
}

// damagedText says that an entry's record is unreadable and where its bytes are.
func damagedText(r repo.Repo, id string) string {
	return fmt.Sprintf("quarantine entry %s: its record (meta.json) is damaged, so mbguard cannot tell which path each file came from; the bytes are in %s: copy what you need from there, then run mbguard quarantine drop %s",
		id, filepath.Join(QuarantineDir(r), id, "files"), id)
}
