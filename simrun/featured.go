package simrun

import "io"

import "strings"

import "github.com/electsim/electsim/simrun/outdir"

import "fmt"

import "github.com/electsim/electsim/reports"

// jobOf is the job a run of the sweep was.
func jobOf(o *options, r *reports.RunSummary) job {
	return job{algo: r.Algorithm, seed: r.Seed, cell: cellOfVary(o, r.Vary)}
}

// representative is algo's first failing run in cell, else its first
// finished one there.
func representative(o *options, s *reports.Summary, algo string, cell int) (job, bool) {
	for _, a := range s.Algorithms {
		if a.Algorithm != algo || cellOfVary(o, a.Vary) != cell || a.Runs == 0 {
			continue
		}
		if a.FirstFailingSeed != nil {
			return job{algo: algo, seed: *a.FirstFailingSeed, cell: cell}, true
		}
		return job{algo: algo, seed: a.FirstSeed, cell: cell}, true
	}
	return job{}, false
}

// featured is the sweep's first failing run (groups in order), else the
// first group's first finished run.
//
// A run that killed its worker process (died) is never featured: running
// it again here would kill simrun. The first failing kept run that did not
// stands in, else the first kept run that did not; ok is false when every
// kept run died.
func featured(o *options, s *reports.Summary, died map[job]bool) (job, bool) {
	for _, a := range s.Algorithms {
		if a.FirstFailingSeed != nil {
			if j := (job{algo: a.Algorithm, seed: *a.FirstFailingSeed, cell: cellOfVary(o, a.Vary)}); !died[j] {
				return j, true
			}
		}
	}
	for _, wantFailing := range []bool{true, false} {
		for i := range s.Runs {
			r := &s.Runs[i]
			if j := jobOf(o, r); !died[j] && (!wantFailing || !r.OK) {
				return j, true
			}
		}
	}
	for _, a := range s.Algorithms {
		if j := (job{algo: a.Algorithm, seed: a.FirstSeed, cell: cellOfVary(o, a.Vary)}); a.Runs > 0 && !died[j] {
			return j, true
		}
	}
	return job{}, false
}

// diedSummary lists the runs that killed their worker, one clause each.
func diedSummary(s *reports.Summary) string {
	var parts []string
	for _, r := range s.Runs {
		if r.WorkerDied && len(r.Violations) > 0 {
			parts = append(parts, fmt.Sprintf("seed %d: %s (%s)", r.Seed, r.Violations[0].Details, r.Violations[0].Replay))
		}
	}
	return strings.Join(parts, "; ")
}

// writeWorkerSummary is a worker process's whole output: its summary as
// JSON (-json), nothing else; its exit status is the sweep's.
func writeWorkerSummary(o *options, stdout io.Writer, s *reports.Summary, res sweepResult) (int, error) {
	js, err := outdir.CreateOutput(o.json, stdout)
	if err == nil {
		if err = reports.WriteJSON(js.W, s); err == nil {
			err = js.Commit()
		} else {
			js.Abort()
		}
	}
	if err != nil {
		return exitUsage, err
	}
	code := exitOK
	if res.col.Failed() > 0 {
		code = exitViolation
	}
	if _, c, ok := interruption(); ok && res.interrupted {
		code = c
	}
	return code, nil
}
