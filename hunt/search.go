package hunt

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/electsim/electsim/scenario"
	"github.com/electsim/electsim/sim"
)

// progressEvery is how often (wall time) Options.Progress gets a line,
// also while a batch's runs are long (docs/hunting.md promises one at
// least every 5 s).
const progressEvery = 2 * time.Second

// maxCorpus bounds the feedback corpus: past it, a new schedule replaces
// the oldest.
const maxCorpus = 512

// Search hunts as o says until it finds a run that breaks the contract (or
// the base's expectations), runs o.Runs runs, spends o.Budget, or ctx is
// done. The budget bounds the search's wall time: at its end the runs in
// progress are abandoned (not judged: a run cut short is no finding). A
// finding is shrunk to a small scenario (Result.Repro) within
// o.ShrinkBudget; ctx done stops the shrink too, with the smallest
// reproduction so far. The error
// is a *UsageError for bad options or a base that does not load; any other
// (a schedule whose run cannot be built, a repro.yaml that cannot be
// written) comes as is, with the result so far.
func Search(ctx context.Context, o Options) (Result, error) {
	if err := o.check(); err != nil {
		return Result{}, err
	}
	started := time.Now()
	runCtx := ctx // the search's runs and builds: ctx, and the budget
	if o.Budget > 0 {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithDeadline(ctx, started.Add(o.Budget))
		defer cancel()
	}
	b, err := loadBase(runCtx, &o)
	if err != nil {
		return Result{}, err
	}
	h := &hunter{ctx: runCtx, stopCtx: ctx, o: &o, b: b, clusters: map[string]*cluster{}, started: started,
		res: Result{ByStrategy: map[Strategy]int{}}}
	h.d = &drawer{o: &o, b: b, rng: sim.NewRand(o.Seed, "hunt"), dur: b.sc.Duration}
	if b.nodes {
		h.d.nmin, h.d.nmax = BaseNodesMin, BaseNodesMax
	}
	c0, err := h.cluster(0, nil)
	var died *DiedError
	switch {
	case errors.As(err, &died):
		return Result{}, err
	case err != nil:
		return Result{}, usagef("%v", err)
	}
	if o.OnStart != nil {
		// From the base's first build: with a Runner, a worker called
		// the algorithm's code (its Contract) and sent the caveat back.
		caveat := c0.caveat
		if b.desc.Contract == nil && !b.noElection {
			caveat = "" // no contract: the hunt holds it to the election's own promise (findings)
		}
		o.OnStart(b.algo, caveat)
	}
	if len(c0.kinds) == 0 {
		return Result{}, usagef("no fault kind to draw on this cluster (kinds %v)", o.Kinds)
	}
	h.states = c0.states
	h.reach = newReach(newAlphabet(c0.states))
	var abort, stopped atomic.Bool
	defer context.AfterFunc(runCtx, func() { abort.Store(true) })()
	defer context.AfterFunc(ctx, func() { stopped.Store(true) })()
	h.abort, h.stopped = &abort, &stopped
	err = h.loop(runCtx)
	h.res.Coverage = h.reach.coverage(len(c0.events)+len(c0.states), len(c0.classesDrawn()), len(h.corpus))
	if err == nil && h.res.Found && h.notReplayed != "" {
		// A finding its reproduction does not replay to is a defect of
		// the hunt, not a finding (tested by TestEveryFindingReplays).
		return h.res, &NotReplayedError{Failure: h.res.Failure, Seed: h.res.Seed, Why: h.notReplayed, Repro: h.res.Repro}
	}
	if err == nil && h.res.Found && o.Out != "" {
		err = writeRepro(o.Out, h.res.Repro)
	}
	return h.res, err
}

// writeRepro writes repro.yaml into dir, creating dir, never replacing a
// file that is there.
func writeRepro(dir string, repro []byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(dir, "repro.yaml"), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("not overwriting: %w", err)
	}
	if _, err := f.Write(repro); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// hunter is one search's state.
type hunter struct {
	ctx      context.Context // the search's runs and builds: ends at a signal or the budget's end
	stopCtx  context.Context // the caller's: ends at a signal (the shrink's)
	o        *Options
	b        *base
	d        *drawer
	clusters map[string]*cluster
	reach    *reach
	states   []string // the algorithm's protocol states (the alphabet's tail)
	corpus   []schedule
	res      Result
	started  time.Time
	lastLine time.Time
	abort    *atomic.Bool // ctx's end, for the runs in this process
	stopped  *atomic.Bool // stopCtx's end, for the shrink in this process
	// notReplayed says how the finding's reproduction failed to replay
	// to it ("" when it replays).
	notReplayed string
}

// outcome is one judged run.
type outcome struct {
	s       schedule
	sc      *scenario.Scenario
	err     error
	hash    string
	simTime time.Duration
	failure []string
	exhaust bool
	probe   *probe
	panic   string // a panic outside the handlers, with its stack
	died    bool   // the run's worker process died (panic: its fatal error and stack)
}

// loop draws and judges batches of Workers runs until a stopping point.
func (h *hunter) loop(ctx context.Context) error {
	for {
		n := h.o.Workers
		if h.o.Runs > 0 {
			n = min(n, h.o.Runs-h.res.Runs)
		}
		if n <= 0 || ctx.Err() != nil || h.o.Budget > 0 && time.Since(h.started) >= h.o.Budget {
			return nil
		}
		batch := make([]outcome, n)
		for i := range batch {
			s, err := h.draw()
			if err != nil {
				if ctx.Err() != nil { // a configuration's build in a worker, stopped
					return nil
				}
				return err
			}
			batch[i].s = s
		}
		var wg sync.WaitGroup
		for i := range batch {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if h.o.Runner != nil {
					h.runIsolated(ctx, i, &batch[i])
				} else {
					h.run(&batch[i])
				}
			}()
		}
		h.wait(&wg)
		if h.abort.Load() || ctx.Err() != nil { // a runner may end its runs when ctx is done
			return nil
		}
		for i := range batch {
			if done, err := h.judge(&batch[i]); done || err != nil {
				return err
			}
		}
		h.progress(false)
	}
}

// wait waits for a batch's runs, printing the progress line on time
// while they are long (the batch's goroutines touch no field it reads).
func (h *hunter) wait(wg *sync.WaitGroup) {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	tick := time.NewTicker(progressEvery)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return
		case <-tick.C:
			h.progress(false)
		}
	}
}

// draw picks a strategy and draws its schedule.
func (h *hunter) draw() (schedule, error) {
	var avail []Strategy
	for _, st := range h.o.Strategies {
		if st != StrategyFeedback || len(h.corpus) > 0 {
			avail = append(avail, st)
		}
		if st == StrategyState && len(h.b.desc.States) > 0 {
			// Declared states are the algorithm's own account of where
			// its steps can be cut: they get twice the draws.
			avail = append(avail, st)
		}
	}
	if len(avail) == 0 { // feedback alone starts from swarm schedules
		avail = []Strategy{StrategySwarm}
	}
	st := avail[h.d.rng.Intn(len(avail))]
	s := schedule{strategy: st, seed: h.d.rng.Uint64()}
	if st == StrategyFeedback {
		parent := h.corpus[h.d.rng.Intn(len(h.corpus))].clone()
		parent.strategy, parent.seed = StrategyFeedback, s.seed
		c, err := h.cluster(parent.nodes, parent.params)
		if err != nil {
			return schedule{}, err
		}
		h.d.mutate(&parent, c)
		return parent, nil
	}
	s.nodes = h.d.nodes()
	// The extremes strategy always draws edges; the state strategy on
	// half its runs, so its cuts reach the configurations only edges
	// enable (an option off by default, a flavour other than the
	// default's) and not the defaults alone.
	if st == StrategyExtremes || st == StrategyState && h.d.rng.Intn(2) == 0 {
		// A combination of edges the algorithm refuses is drawn again,
		// a few times, then dropped.
		for try := 0; try < 4; try++ {
			p := h.d.extremes()
			if _, err := h.cluster(s.nodes, p); err == nil {
				s.params = p
				break
			}
		}
	}
	c, err := h.cluster(s.nodes, s.params)
	if err != nil {
		return schedule{}, err
	}
	if st == StrategyState && len(c.events)+len(c.states) > 0 {
		h.d.state(&s, c)
	} else {
		h.d.swarm(&s, c)
	}
	return s, nil
}

// progress prints a progress line every progressEvery (or now, with force).
func (h *hunter) progress(force bool) {
	w := h.o.Progress
	if w == nil || !force && time.Since(h.lastLine) < progressEvery {
		return
	}
	h.lastLine = time.Now()
	el := time.Since(h.started)
	fmt.Fprintf(w, "%s hunt: runs %d in %v (%.0f/s), %v simulated; %s\n", h.o.Program, h.res.Runs, el.Round(time.Millisecond),
		float64(h.res.Runs)/max(el.Seconds(), 1e-9), h.res.SimTime.Round(time.Second), h.reach.coverage(0, 0, len(h.corpus)).short())
}

// short is the coverage in a few words, for progress lines.
func (c Coverage) short() string {
	return fmt.Sprintf("%d events, %d pairs, %d transitions reached", len(c.Events), len(c.Pairs), c.Edges)
}
