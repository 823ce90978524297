package main

import (
	"fmt"
	"io"
	"time"

	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/outcome"
)

// jobReportsNext is what the person does about a bank change kept while a background job ran.
const jobReportsNext = "look at each path listed by mbguard status; if the agent's job wrote it, restore it with git checkout -- PATH"

// checkJobReports warns about bank changes made while an agent's background job ran and kept
// for lack of evidence (outcome.JobReports); no line when there are none.
func checkJobReports(r repo.Repo, now time.Time) []doctorCheck {
	js, err := outcome.JobReports(r, now)
	if err != nil {
		return []doctorCheck{{Name: "background", Status: checkWarn, Detail: err.Error(), Next: "delete that file"}}
	}
	if len(js) == 0 {
		return nil
	}
	last := js[len(js)-1]
	return []doctorCheck{{Name: "background", Status: checkWarn,
		Detail: fmt.Sprintf("%d %s of memory-bank/ made while an agent's background job ran %s kept (latest: %s, %s)",
			len(js), plural(len(js), "change", "changes"), plural(len(js), "was", "were"), terminalSafe(last.Path), time.UnixMilli(last.Time).Format(time.DateTime)),
		Next: jobReportsNext}}
}

// printJobReports is the status section of those changes.
func printJobReports(w io.Writer, js []outcome.JobReport) {
	if len(js) == 0 {
		fmt.Fprintln(w, "background-job changes kept: none")
		return
	}
	fmt.Fprintln(w, "background-job changes kept (no evidence whether the job or a person made them):")
	for _, j := range js {
		fmt.Fprintf(w, "  %s  %s  %s\n", time.UnixMilli(j.Time).Format(time.DateTime), terminalSafe(j.Path), terminalSafe(j.Text))
	}
}
