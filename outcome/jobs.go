package outcome

import (
	"fmt"
	"strconv"
	"strings"
)

// RuleBackground: a bank change made while a call's background job ran, with no evidence
// whether the job or a person made it. Kept and reported.
const RuleBackground = "changed-during-background-job"

// judgeJobs judges the changes made since the last check while no call was between its pre
// and post, but processes calls left running (jobs) were, or had been, alive. A change one of
// those processes holds open for writing is the job's: undone, naming the process. Any other
// change may be a person's: it is kept and reported, never undone on timing alone.
func (g *Guard) judgeJobs(m *manifest, jobs []Call, rep *Report) error {
	changes, _, err := g.changesSince(m)
	if err != nil || len(changes) == 0 {
		return err
	}
	var pids []int
	var ps []Proc
	for _, j := range jobs {
		ps = append(ps, j.Procs...)
	}
	pids = jobProcs(ps)
	held := openForWrite(pids, g.r.Root)
	owner := func(pid int) Call {
		for _, j := range jobs {
			for _, p := range j.Procs {
				if p.PID == pid {
					return j
				}
			}
		}
		return jobs[0]
	}
	var list []*change
	var why [][]Problem
	blobs := false
	for _, c := range changes {
		// (a known-good file whose bytes were never kept cannot be put back)
		if pid, ok := held[c.path]; ok && (c.b == nil || c.b.Kind != KindFile || c.b.Blob != "") {
			j := owner(pid)
			list = append(list, c)
			why = append(why, []Problem{{Path: c.path, Rule: RuleNotAllowed, Text: fmt.Sprintf(
				"process %d, left running by %s call %s, holds it open for writing", pid, j.Tool, strings.TrimSuffix(j.ID, bgSuffix))}})
			continue
		}
		_ = g.readOld(c)
		probs, err := g.o.Rules.judge(c.path, c.b, c.d, c.old, c.new)
		if err != nil {
			return err
		}
		j := jobs[0]
		rep.Noticed = append(rep.Noticed, Problem{Path: c.path, Rule: RuleBackground, Text: fmt.Sprintf(
			"%s while processes %s call %s left running (%s) were or had been alive; mbguard has no evidence whether they or a person did it, so it was kept — if the job did it, restore it with `git checkout -- %s` or `mbguard quarantine`",
			c.what(), j.Tool, strings.TrimSuffix(j.ID, bgSuffix), pidList(pids, j.Procs), c.path)})
		rep.Noticed = append(rep.Noticed, probs...)
		if err := g.accept(m, c); err != nil {
			return err
		}
		rep.Accepted = append(rep.Accepted, c.path)
		blobs = true
	}
	if len(rep.Noticed) > 0 {
		// the agent hears these with its next call; the person through status and doctor
		if err := g.keepJobReports(rep.Noticed); err != nil {
			rep.Noticed = append(rep.Noticed, Problem{Path: jobReportsPath(g.r), Rule: RuleBackground,
				Text: "could not be written (" + err.Error() + "), so `mbguard status` will not list the changes above; run `mbguard doctor`"})
		}
	}
	if len(list) > 0 {
		rep.Settled = append(rep.Settled, jobs...)
		if err := g.undo(m, list, why, rep); err != nil {
			_ = g.saveManifest(m, blobs)
			return err
		}
	}
	return g.saveManifest(m, blobs)
}

func pidList(alive []int, rec []Proc) string {
	var s []string
	for _, p := range alive {
		s = append(s, strconv.Itoa(p))
	}
	if len(s) == 0 {
		for _, p := range rec {
			s = append(s, strconv.Itoa(p.PID))
		}
		return "pid " + strings.Join(s, ", ") + ", now exited"
	}
	return "pid " + strings.Join(s, ", ")
}
