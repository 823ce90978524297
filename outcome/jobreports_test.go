package outcome

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The kept reports are bounded (the newest stay), expire after JobReportsFor, and a file
// mbguard did not write is an error naming the fix, replaced by the next report.
func TestJobReportsBoundedAndExpiring(t *testing.T) {
	_, g := newBank(t)
	now := time.Now()
	g.o.Now = func() time.Time { return now }
	for i := range maxJobReports + 5 {
		if err := g.keepJobReports([]Problem{{Path: "memory-bank/" + strconv.Itoa(i) + ".json", Rule: RuleBackground, Text: "x"},
			{Path: "memory-bank/other", Rule: RuleNotAllowed, Text: "not a job's"}}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := JobReports(g.r, now)
	if err != nil || len(got) != maxJobReports {
		t.Fatalf("kept %d reports (%v), want %d", len(got), err, maxJobReports)
	}
	if got[0].Path != "memory-bank/5.json" || got[len(got)-1].Path != "memory-bank/24.json" {
		t.Errorf("kept %s..%s, want the newest", got[0].Path, got[len(got)-1].Path)
	}
	if later, _ := JobReports(g.r, now.Add(JobReportsFor+time.Minute)); len(later) != 0 {
		t.Errorf("%d reports shown after they expired", len(later))
	}
	os.WriteFile(jobReportsPath(g.r), []byte("{not json"), 0o600)
	if _, err := JobReports(g.r, now); err == nil || !strings.Contains(err.Error(), "delete it") {
		t.Errorf("a garbled file: err = %v, want one naming the fix", err)
	}
	if err := g.keepJobReports([]Problem{{Path: "memory-bank/n.json", Rule: RuleBackground}}); err != nil {
		t.Fatal(err)
	}
	if got, err := JobReports(g.r, now); err != nil || len(got) != 1 {
		t.Errorf("after a garbled file: %+v, %v; want the new report alone", got, err)
	}
}
