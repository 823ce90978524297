package outcome

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/mbguard/mbguard/internal/fsutil"
	"github.com/mbguard/mbguard/internal/repo"
)

// JobReport is one bank change made while a background job ran, kept because mbguard had no
// evidence whether the job or a person made it. The agent hears it with its next call; the
// person sees it in `mbguard status` and `mbguard doctor`.
type JobReport struct {
	Time int64  `json:"time"` // Unix ms, when the check found it
	Path string `json:"path"`
	Text string `json:"text"`
}

const (
	// maxJobReports bounds the kept reports (the newest stay).
	maxJobReports = 20
	// JobReportsFor is how long a report is shown.
	JobReportsFor = 7 * 24 * time.Hour
	// maxJobReportsFile bounds what is read: the file mbguard writes stays far below it.
	maxJobReportsFile = 1 << 20
)

func jobReportsPath(r repo.Repo) string { return filepath.Join(r.StateDir(), "job-reports.json") }

// JobReports are the kept reports from the last JobReportsFor before now, oldest first. A
// missing file is none.
func JobReports(r repo.Repo, now time.Time) ([]JobReport, error) {
	f, err := os.Open(jobReportsPath(r))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxJobReportsFile+1))
	if err != nil {
		return nil, err
	}
	var all struct {
		Reports []JobReport `json:"reports"`
	}
	if len(b) > maxJobReportsFile || json.Unmarshal(b, &all) != nil {
		return nil, fmt.Errorf("%s is not a report file mbguard wrote; delete it (it only lists changes already reported)", jobReportsPath(r))
	}
	var out []JobReport
	for _, j := range all.Reports {
		if now.Sub(time.UnixMilli(j.Time)) <= JobReportsFor {
			out = append(out, j)
		}
	}
	return out, nil
}

// keepJobReports adds the background-job problems of ps to the kept reports, under the
// guard's lock. An unreadable old file is replaced: it only held reports already given.
func (g *Guard) keepJobReports(ps []Problem) error {
	now := g.o.Now()
	old, _ := JobReports(g.r, now)
	for _, p := range ps {
		if p.Rule == RuleBackground {
			old = append(old, JobReport{Time: now.UnixMilli(), Path: p.Path, Text: p.Text})
		}
	}
	if len(old) > maxJobReports {
		old = old[len(old)-maxJobReports:]
	}
	b, err := json.Marshal(struct {
		Reports []JobReport `json:"reports"`
	}{old})
	if err != nil {
		return err
	}
	if err := os.MkdirAll(g.r.StateDir(), 0o755); err != nil {
		return err
	}
	return fsutil.WriteFileAtomic(jobReportsPath(g.r), b, 0o600)
}
