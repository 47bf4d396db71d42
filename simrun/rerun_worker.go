package simrun

import (
	"encoding/json"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/electsim/electsim/hunt"
	"github.com/electsim/electsim/reports"
	"github.com/electsim/electsim/scenario"
	"github.com/electsim/electsim/sim"
	"github.com/electsim/electsim/simrun/worker"
)

// After the sweep, in a worker. A sweep of a user's algorithm (not built
// into electsim) in worker processes still runs some of its runs again
// after the sweep: the failing runs it prints, for their explanations;
// the featured run, in full, for its exports; that run's shrink; a
// comparison's other algorithms' runs, for their timelines. And its
// summary asks the algorithm's own functions what each group is not
// promised (Contract) and where its fencing token comes from (Token).
// All of it is the user's code, which need not behave in this process as
// it did in the workers (a global counter, the environment), so a worker
// process does it too (worker.HuntPool.Own, under the watchdog) and this
// process reads back only data: a run's summary, a timeline, the
// space-time diagram, the shrunk file, a caveat and a token. The featured
// run's trace exports the worker writes into a folder of this process's
// (worker.MakeDir), which copies them into its own staged outputs: the
// all-or-nothing commit stays this process's. Built-in algorithms run all
// of it here, as before.

// rerunJob is one such job, as JSON. Kind is what it asks:
//
//   - "explain": the run with its story; its summary.
//   - "timeline": the run with its story; its timeline.
//   - "featured": the run with its story and exports; what the report
//     needs of it (featuredOut), its trace files written to Trace and
//     Perfetto, its porcupine visualizations to Folder.
//   - "shrink": the worker's last featured run, shrunk within Shrink.
//   - "group": Algorithm's caveat and token in the file.
type rerunJob struct {
	Kind string `json:"kind"`
	// The file as the user gave it (hunt.MaterializeJob's Name, Source,
	// Sets and Running), read in the worker in full.
	File struct {
		Name    string   `json:"name"`
		Source  string   `json:"source"`
		Sets    []string `json:"sets,omitempty"`
		Running []string `json:"running,omitempty"`
	} `json:"file"`
	// Program runs it (scenario.Scenario.Program).
	Program string `json:"program"`
	// Seed and Algorithm are the run's (the algorithm by name).
	Seed      uint64 `json:"seed"`
	Algorithm string `json:"algorithm"`
	// PorcupineTimeout is the sweep's (-porcupine-timeout).
	PorcupineTimeout time.Duration `json:"porcupine_timeout_ns,omitempty"`
	// FailFast is the sweep's (-fail-fast).
	FailFast bool `json:"fail_fast,omitempty"`
	// Trace and Perfetto are the files the featured run's exports go
	// to, Folder where its porcupine visualizations go ("": none).
	Trace, Perfetto, Folder string `json:",omitempty"`
	// Cut, after a signal, bounds the featured run's wall time.
	Cut time.Duration `json:"cut_ns,omitempty"`
	// Shrink is the shrink's budget.
	Shrink time.Duration `json:"shrink_ns,omitempty"`
}

// rerunReply answers a rerunJob.
type rerunReply struct {
	// LoadErr is why the file does not load; Err why the run could not
	// be built; Crash a panic of the algorithm's code outside its
	// handlers (its checks, its factory, its Contract or Token).
	LoadErr string `json:"load_err,omitempty"`
	Err     string `json:"err,omitempty"`
	Crash   string `json:"crash,omitempty"`

	Summary *reports.RunSummary `json:"summary,omitempty"` // explain
	// Explained is the explain job's Summary.Explained, which the
	// summary's JSON leaves out (scenario.Run.Explain).
	Explained string `json:"explained,omitempty"`
	// The featured run's facts (featuredOut), with its end: Stopped
	// when the cut stopped it, at Now.
	OK        bool               `json:"ok,omitempty"`
	Failure   []string           `json:"failure,omitempty"`
	Timeline  *reports.Timeline  `json:"timeline,omitempty"` // and "timeline"
	SpaceTime *reports.SpaceTime `json:"space_time,omitempty"`
	Porcupine []reports.Link     `json:"porcupine,omitempty"`
	Stopped   bool               `json:"stopped,omitempty"`
	Now       string             `json:"now,omitempty"`
	// PerfettoNote is exports.perfettoNote.
	PerfettoNote string     `json:"perfetto_note,omitempty"`
	Shrunk       *shrunkRun `json:"shrunk,omitempty"`
	// Token and Caveat are the group's (tokenInfo, Scenario.Caveat).
	Token  *reports.Token `json:"token,omitempty"`
	Caveat string         `json:"caveat,omitempty"`
}

// newRerunServer serves rerunJobs in a worker process (worker.ServeHunt).
// It keeps the last featured run, which "shrink" shrinks.
func newRerunServer() worker.OwnServer {
	var last *scenario.Run
	return func(raw json.RawMessage, g *worker.Guard) any {
		var j rerunJob
		if err := json.Unmarshal(raw, &j); err != nil {
			return rerunReply{Err: err.Error()}
		}
		return serveRerun(j, g, &last)
	}
}

// serveRerun does j with the worker's guard g; a panic of the
// algorithm's code is the reply's Crash.
func serveRerun(j rerunJob, g *worker.Guard, last **scenario.Run) (rep rerunReply) {
	defer func() {
		if p := recover(); p != nil {
			rep = rerunReply{Crash: fmt.Sprintf("the algorithm's code panicked: %v", p)}
		}
	}()
	beat := g.Building() // the watchdog times the file's reading and the build too
	if j.Kind == "shrink" {
		if *last == nil {
			return rerunReply{Err: "no featured run to shrink"}
		}
		sh := shrinkHere(*last, j.Shrink, g.Building, g.Gor.Arm)
		return rerunReply{Shrunk: &sh}
	}
	sc, err := scenario.ParseRunning(j.File.Name, []byte(j.File.Source), j.File.Sets, j.File.Running)
	if err != nil {
		return rerunReply{LoadErr: err.Error()}
	}
	sc.Program = j.Program
	if j.Kind == "group" {
		return rerunReply{Token: tokenInfo(sc, j.Algorithm), Caveat: sc.Caveat(j.Algorithm)}
	}
	h := hunt.Hooks{Beat: beat, Guard: g.Gor.Arm()}
	if j.Kind != "featured" {
		run, err := sc.Run(scenario.RunOptions{Seed: j.Seed, Algorithm: algoOverride(sc, j.Algorithm), PorcupineTimeout: j.PorcupineTimeout, Story: true, StopAtViolation: j.FailFast,
			Beat: h.Beat, Guard: h.Guard})
		switch {
		case err != nil:
			return rerunReply{Err: err.Error()}
		case j.Kind == "timeline":
			return rerunReply{Timeline: timeline(run)}
		}
		rs := summarize(run)
		return rerunReply{Summary: &rs, Explained: run.Explain(nil)}
	}
	return serveFeatured(j, sc, h, last)
}

// serveFeatured runs the featured run with its exports (a worker's side
// of scenarioRun.feature).
func serveFeatured(j rerunJob, sc *scenario.Scenario, h hunt.Hooks, last **scenario.Run) rerunReply {
	if j.Cut > 0 {
		h.Abort = new(atomic.Bool)
		defer time.AfterFunc(j.Cut, func() { h.Abort.Store(true) }).Stop()
	}
	o := &options{prog: j.Program, trace: j.Trace, perfetto: j.Perfetto, porcupine: j.PorcupineTimeout, failFast: j.FailFast, quiet: true}
	fr, ex, err := rerun(sc, job{algo: j.Algorithm, seed: j.Seed}, o, io.Discard, io.Discard, "featured run", h)
	if err != nil {
		return rerunReply{Err: err.Error()}
	}
	if err := ex.Install(); err != nil {
		return rerunReply{Err: err.Error()}
	}
	ex.Finish()
	*last = fr
	f := featuredHere(fr, ex)
	links, err := porcupineFiles(j.Folder, fr)
	if err != nil {
		return rerunReply{Err: err.Error()}
	}
	return rerunReply{OK: f.ok, Failure: f.failure, Timeline: f.timeline, SpaceTime: f.spaceTime, Porcupine: links,
		Stopped: fr.Outcome == sim.OutcomeStopped, Now: fmt.Sprint(fr.Sim.Now()), PerfettoNote: ex.perfettoNote}
}
