package simrun

import (
	"fmt"
	"io"
	"time"

	"github.com/electsim/electsim/sim"
)

// runProgress reports one long run's progress on stderr as its simulated
// time advances: how much of the run's simulated time is done, how fast it
// goes (simulated per wall second) and an ETA. A run shorter than a couple
// of seconds of wall time prints nothing. It is a read-only sim.LeanSink,
// so the trace and its hash are the same with it; it reads the wall clock
// only each time simulated time has advanced by a thousandth of the run,
// so its cost per event is one comparison.
type runProgress struct {
	w       io.Writer
	name    string   // the program's name, the lines' prefix (progName)
	label   string   // "run", "featured run"
	total   sim.Time // the run's simulated length: duration and settle
	step    sim.Time
	next    sim.Time
	start   time.Time
	last    time.Time
	every   time.Duration
	tty     bool
	printed bool
}

// newRunProgress returns a progress reporter for a run of total simulated
// time, or nil when quiet.
func newRunProgress(w io.Writer, label string, total time.Duration, quiet bool) *runProgress {
	if quiet || w == nil || total <= 0 {
		return nil
	}
	now := time.Now()
	p := &runProgress{w: w, name: "simrun", label: label, total: sim.Time(total), step: max(sim.Time(total)/1000, 1), start: now, every: 5 * time.Second}
	if isTerminal(w) {
		p.tty, p.every = true, 200*time.Millisecond
	}
	// The first report waits until the run has taken 2 s: short runs stay
	// silent.
	p.last = now.Add(2*time.Second - p.every)
	return p
}

// Record implements sim.Sink.
func (p *runProgress) Record(r *sim.Record) { p.at(r.At) }

// Message implements sim.LeanSink.
func (p *runProgress) Message(_ sim.RecordType, _ sim.DropReason, _ sim.MsgKind, _, _ sim.NodeID, _ int64, at, _ sim.Time) {
	p.at(at)
}

func (p *runProgress) at(t sim.Time) {
	if t < p.next {
		return
	}
	p.next = t + p.step
	now := time.Now()
	if now.Sub(p.last) < p.every {
		return
	}
	p.last = now
	p.print(t, now.Sub(p.start))
}

// print writes one report: "run: simulated 12h0m0s of 720h0m0s (1.7%),
// 9,650 simulated s per s, ETA 1m13s".
func (p *runProgress) print(t sim.Time, el time.Duration) {
	done := min(float64(t)/float64(p.total), 1)
	msg := fmt.Sprintf("%s: simulated %v of %v (%.1f%%)", p.label, t.Duration().Round(time.Second), p.total.Duration(), 100*done)
	if s := el.Seconds(); s > 0 && done > 0 {
		msg += fmt.Sprintf(", %.0f simulated s per s, ETA %v", t.Duration().Seconds()/s,
			time.Duration(float64(el)*(1-done)/done).Round(time.Second))
	}
	if p.tty {
		fmt.Fprintf(p.w, "\r%-90s", msg)
		p.printed = true
		return
	}
	fmt.Fprintf(p.w, "%s: %s\n", p.name, msg)
}

// finish ends a terminal's progress line.
func (p *runProgress) finish() {
	if p != nil && p.printed {
		fmt.Fprintln(p.w)
	}
}
