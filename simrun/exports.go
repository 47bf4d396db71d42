package simrun

import "github.com/electsim/electsim/sim"

import "fmt"

import "github.com/electsim/electsim/scenario"

import "github.com/electsim/electsim/hunt"

import "github.com/electsim/electsim/simrun/outdir"

import "github.com/electsim/electsim/reports"

import "io"

// exports are the featured run's trace files, written but not yet in
// place: they are committed with the other outputs, or not at all.
type exports struct {
	files []*outdir.AtomicFile
	// diagram collected the run's messages and timers for the report's
	// space-time diagram.
	diagram *spaceTimeSink
	// perfettoNote says that -perfetto holds only the run's first
	// records ("" when it holds them all).
	perfettoNote string
}

// spaceTime is the featured run's diagram (nil without one).
func (e *exports) spaceTime(fr *scenario.Run) *reports.SpaceTime {
	if e == nil || e.diagram == nil || fr == nil {
		return nil
	}
	return e.diagram.diagram(timeline(fr))
}

// Abort removes every staged export.
func (e *exports) Abort() {
	if e == nil {
		return
	}
	for _, f := range e.files {
		f.Abort()
	}
}

// Install puts every export in place; on error the ones installed are
// rolled back and the rest aborted.
func (e *exports) Install() error {
	if e == nil {
		return nil
	}
	for i, f := range e.files {
		if err := f.Install(); err != nil {
			for _, g := range e.files[:i] {
				g.Rollback()
			}
			for _, g := range e.files[i+1:] {
				g.Abort()
			}
			return err
		}
	}
	return nil
}

// Finish completes Install: the files the exports replaced are removed.
func (e *exports) Finish() {
	if e == nil {
		return
	}
	for _, f := range e.files {
		f.Finish()
	}
}

// Rollback undoes Install: the files the exports replaced come back.
func (e *exports) Rollback() {
	if e == nil {
		return
	}
	for _, f := range e.files {
		f.Rollback()
	}
}

// MaxFeaturedFaults bounds the injected faults the featured run's report
// draws on its timeline (scenario.RunOptions.HistoryLimit): a fault every
// millisecond would otherwise keep some 400 bytes per fault for the whole
// run (docs/output.md, "Limits").
const MaxFeaturedFaults = 5_000

// rerun runs j again with its story and the trace exports o asks for,
// written to staged files that the caller commits or aborts. A long run
// reports its progress in simulated time on stderr (unless -quiet), under
// label. h are the run's hooks: its abort after a signal, and in a worker
// process its watchdog's beat and goroutine guard (rerun_worker.go).
func rerun(sc *scenario.Scenario, j job, o *options, stdout, stderr io.Writer, label string, h hunt.Hooks) (*scenario.Run, *exports, error) {
	opts := scenario.RunOptions{Seed: j.seed, Algorithm: algoOverride(sc, j.algo), PorcupineTimeout: o.porcupine, Story: true, StopAtViolation: o.failFast, Abort: h.Abort,
		Beat: h.Beat, Guard: h.Guard, HistoryLimit: MaxFeaturedFaults}
	ex := &exports{}
	r, err := sc.Build(opts)
	if err != nil {
		return nil, nil, err
	}
	var jw *sim.JSONLWriter
	if o.trace != "" {
		tf, err := outdir.CreateOutput(o.trace, stdout)
		if err != nil {
			return nil, nil, err
		}
		ex.files = append(ex.files, tf)
		jw = sim.NewJSONLWriter(tf.W, r.Sim)
		r.Sim.AddSink(jw)
	}
	ex.diagram = newSpaceTimeSink(r.Sim, len(sc.Faults)+len(sc.Nemeses) > 0)
	r.Sim.AddSink(ex.diagram)
	var pfs *sim.PerfettoSink
	if o.perfetto != "" {
		// The export is built as the run goes, a few hundred bytes per
		// record, and bounded: a day of long-day.yaml has 16 million.
		pfs = sim.NewPerfettoSink(r.Sim, MaxPerfettoRecords)
		r.Sim.AddSink(pfs)
	}
	prog := newRunProgress(stderr, label, sc.Duration+sc.Settle.For, o.quiet)
	if prog != nil {
		prog.name = progName(o)
	}
	if prog != nil {
		r.Sim.AddSink(prog)
	}
	r.Execute(opts)
	prog.finish()
	if jw != nil {
		if err := jw.Flush(); err != nil {
			ex.Abort()
			return nil, nil, fmt.Errorf("-trace: %w", err)
		}
	}
	if o.perfetto != "" {
		pf, err := outdir.CreateOutput(o.perfetto, stdout)
		if err != nil {
			ex.Abort()
			return nil, nil, err
		}
		ex.files = append(ex.files, pf)
		if err := pfs.Write(pf.W); err != nil {
			ex.Abort()
			return nil, nil, fmt.Errorf("-perfetto: %w", err)
		}
		if pfs.Truncated() {
			ex.perfettoNote = fmt.Sprintf("%s: -perfetto: the featured run has more than %d records; the export holds its first %d, up to t=%s (-trace streams the whole run as JSON lines)", progName(o),
				MaxPerfettoRecords, pfs.Kept(), pfs.End())
			if !o.quiet {
				fmt.Fprintln(stderr, ex.perfettoNote)
			}
		}
	}
	return r, ex, nil
}
