package simrun

import (
	"fmt"
	"io"
	"strings"

	"github.com/electsim/electsim/checker"
	"github.com/electsim/electsim/reports"
	"github.com/electsim/electsim/scenario"
)

// explain runs again, with their story, the failing runs the summary
// prints, so their violations come explained. The sweep judged runs
// without their story. The sweep's verdicts stand: a porcupine check
// bounded by wall time can decide differently the second time, and the
// kept run must agree with the aggregates and the runs file.
func (r *scenarioRun) explain() *ending {
	o, s := r.o, r.s
	explained := 0
	for i := range s.Runs {
		// The single run already has its story; after a signal, no rerun
		// but the featured one.
		if r.fr != nil || explained >= maxPrintedFailures || r.res.interrupted {
			break
		}
		if s.Runs[i].OK || s.Runs[i].WorkerDied {
			continue // a run that killed its worker would kill this process
		}
		explained++
		again, e := r.explained(jobOf(o, &s.Runs[i]))
		if e != nil {
			r.abort()
			return e
		}
		addExplanations(&s.Runs[i], again)
		s.Runs[i].Explained = again.Explained
	}
	return nil
}

// explained is job j run again with its story, summarized: here, or in
// the worker process for a user's algorithm (rerun_worker.go).
func (r *scenarioRun) explained(j job) (reports.RunSummary, *ending) {
	if r.userIsolated(j.algo) {
		rep, e := r.ask(rerunJob{Kind: "explain", Seed: j.seed, Algorithm: j.algo}, j.cell, fmt.Sprintf("seed %d, run again for its explanation", j.seed))
		if e != nil {
			return reports.RunSummary{}, e
		}
		rs := *rep.Summary
		rs.Explained = rep.Explained
		return rs, nil
	}
	o, jsc := r.o, r.scs[j.cell]
	run, err := jsc.Run(scenario.RunOptions{Seed: j.seed, Algorithm: algoOverride(jsc, j.algo), PorcupineTimeout: o.porcupine, Story: true, StopAtViolation: o.failFast})
	if err != nil {
		return reports.RunSummary{}, endWith(exitUsage, err)
	}
	rs := summarize(run)
	rs.Explained = run.Explain(nil)
	return rs, nil
}

// printExplanation prints a failing run's explanation below its problem
// lines: the finding's own check, the faults on its nodes and services and
// its story (scenario.Run.Explain, as a hunt prints it), or, for a crash or
// a run without a story, the shown violation with its stack.
func printExplanation(w io.Writer, r reports.RunSummary) {
	v, ok := shownViolation(r.Violations)
	switch {
	case r.Explained != "" && (!ok || v.Kind != checker.CheckCrashed):
		// The finding's own check, the faults on its nodes and
		// services, its story (scenario.Run.Explain, as a hunt
		// prints it). A crash keeps its stack below.
		fmt.Fprintf(w, "  %s\n", strings.ReplaceAll(r.Explained, "\n", "\n  "))
	case ok:
		text := v.Explanation
		if text == "" {
			text = v.Details
		}
		fmt.Fprintf(w, "  %s: %s\n", v.Kind, text)
		if v.Stack != "" {
			fmt.Fprintf(w, "  %s\n", strings.ReplaceAll(v.Stack, "\n", "\n  "))
		}
	}
}
