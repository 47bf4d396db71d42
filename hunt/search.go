package hunt

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/electsim/electsim/contract"
	"github.com/electsim/electsim/faults"
	"github.com/electsim/electsim/scenario"
	"github.com/electsim/electsim/sim"
)

// progressEvery is how often (wall time) Options.Progress gets a line.
const progressEvery = 2 * time.Second

// maxCorpus bounds the feedback corpus: past it, a new schedule replaces
// the oldest.
const maxCorpus = 512

// Search hunts as o says until it finds a run that breaks the contract (or
// the base's expectations), runs o.Runs runs, spends o.Budget, or ctx is
// done. A finding is shrunk to a small scenario (Result.Repro). The error
// is a *UsageError for bad options or a base that does not load.
func Search(ctx context.Context, o Options) (Result, error) {
	if err := o.check(); err != nil {
		return Result{}, err
	}
	b, err := loadBase(&o)
	if err != nil {
		return Result{}, err
	}
	h := &hunter{o: &o, b: b, clusters: map[string]*cluster{}, started: time.Now(),
		res: Result{ByStrategy: map[Strategy]int{}}}
	h.d = &drawer{o: &o, b: b, rng: sim.NewRand(o.Seed, "hunt"), dur: b.sc.Duration}
	if b.nodes {
		h.d.nmin, h.d.nmax = BaseNodesMin, BaseNodesMax
	}
	c0, err := h.cluster(0, nil)
	if err != nil {
		return Result{}, usagef("%v", err)
	}
	if len(c0.kinds) == 0 {
		return Result{}, usagef("no fault kind to draw on this cluster (kinds %v)", o.Kinds)
	}
	h.reach = newReach(newAlphabet(c0.states))
	var abort atomic.Bool
	stop := context.AfterFunc(ctx, func() { abort.Store(true) })
	defer stop()
	h.abort = &abort
	err = h.loop(ctx)
	h.res.Coverage = h.reach.coverage(len(c0.events)+len(c0.states), len(c0.classesDrawn()), len(h.corpus))
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
	o        *Options
	b        *base
	d        *drawer
	clusters map[string]*cluster
	reach    *reach
	corpus   []schedule
	res      Result
	started  time.Time
	lastLine time.Time
	abort    *atomic.Bool
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
				return err
			}
			batch[i].s = s
		}
		var wg sync.WaitGroup
		for i := range batch {
			wg.Add(1)
			go func() {
				defer wg.Done()
				h.run(&batch[i])
			}()
		}
		wg.Wait()
		if h.abort.Load() {
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
	if st == StrategyExtremes {
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

// cluster loads (once) the base with a configuration's overrides.
func (h *hunter) cluster(nodes int, params []string) (*cluster, error) {
	s := schedule{nodes: nodes, params: params}
	key := s.configKey()
	if c, ok := h.clusters[key]; ok {
		if c == nil {
			return nil, fmt.Errorf("configuration %v does not load", params)
		}
		return c, nil
	}
	c, err := loadCluster(h.o, h.b, h.b.setsFor(nodes, params))
	if err != nil {
		h.clusters[key] = nil
		return nil, err
	}
	h.clusters[key] = c
	return c, nil
}

// loadCluster parses the base with sets and builds (without running) one
// run, to learn its nodes, services, protocol states and contract.
func loadCluster(o *Options, b *base, sets []string) (c *cluster, err error) {
	defer func() {
		if p := recover(); p != nil { // a user algorithm's Build or factory
			c, err = nil, fmt.Errorf("building %s's cluster panicked: %v", b.algo, p)
		}
	}()
	sc, err := scenario.ParseWith(b.name, b.src, sets)
	if err != nil {
		return nil, err
	}
	r, err := sc.Build(scenario.RunOptions{Seed: 1, Algorithm: b.over, Lean: true})
	if err != nil {
		return nil, err
	}
	c = &cluster{sc: sc, candidates: r.Candidates, stores: r.StoreIDs, resource: r.ResourceID, states: b.desc.States}
	for id := 0; id < r.Sim.NumNodes(); id++ {
		c.names = append(c.names, r.Sim.NodeName(sim.NodeID(id)))
	}
	if r.Algorithm == "shedlock" {
		c.states = nil
	}
	for _, ev := range faults.Events() {
		switch ev {
		case faults.EventRenew, faults.EventAcquired, faults.EventExpired:
			if len(c.stores) == 0 {
				continue
			}
		case faults.EventJobStarted, faults.EventJobFinished:
			if r.Resource == nil {
				continue
			}
		}
		c.events = append(c.events, ev)
	}
	c.contract = r.Contract
	c.kinds = kindsFor(o, r.Contract, r.Store != nil)
	return c, nil
}

// nodeIDs are every node of the cluster a fault may hit.
func (c *cluster) nodeIDs() []sim.NodeID {
	out := append([]sim.NodeID(nil), c.candidates...)
	out = append(out, c.stores...)
	if c.resource != sim.None {
		out = append(out, c.resource)
	}
	return out
}

// classesDrawn are the fault classes of the cluster's kinds.
func (c *cluster) classesDrawn() []contract.FaultClass {
	var out []contract.FaultClass
	for _, k := range c.kinds {
		cls := classOfKind(k)
		dup := false
		for _, x := range out {
			dup = dup || x == cls
		}
		if !dup {
			out = append(out, cls)
		}
	}
	return out
}

// run executes one schedule (concurrently with the rest of its batch). A
// panic outside the algorithm's handlers (which the engine already turns
// into a crashed finding), in a factory or a checker, is this run's crashed
// finding too, not the end of the search.
func (h *hunter) run(out *outcome) {
	defer func() {
		if p := recover(); p != nil {
			out.failure = []string{"crashed"}
			out.panic = fmt.Sprintf("panic: %v\n\n%s", p, debug.Stack())
		}
	}()
	sc, err := h.scenarioOfLocked(&out.s)
	if err != nil {
		out.err = err
		return
	}
	out.sc = sc
	out.probe = newProbe(h.reach.a)
	r, err := sc.Run(scenario.RunOptions{Seed: out.s.seed, Algorithm: h.b.over, Lean: true, Sinks: []sim.Sink{out.probe},
		Replay: "(hunt run; the repro replays it)", Abort: h.abort})
	if err != nil {
		out.err = err
		return
	}
	out.hash = r.Sim.TraceHashHex()
	out.simTime = r.Sim.Now().Duration()
	out.exhaust = r.Outcome.Exhausted()
	out.failure = findings(r)
}

// scenarioOfLocked is scenarioOf for a schedule whose configuration was
// loaded when it was drawn (so the cache is only read, never written, by
// the batch's goroutines).
func (h *hunter) scenarioOfLocked(s *schedule) (*scenario.Scenario, error) {
	c := h.clusters[s.configKey()]
	if c == nil {
		return nil, fmt.Errorf("configuration %v does not load", s.params)
	}
	sc := *c.sc
	sc.Faults = append(append([]faults.Fault(nil), c.sc.Faults...), s.faults...)
	return &sc, nil
}

// findings is how a run failed, as a finding: scenario.Failure without an
// event budget's exhaustion (a runaway, reported apart) or an expected
// finding that did not occur (a demonstration's, not a bug).
func findings(r *scenario.Run) []string {
	var out []string
	for _, f := range scenario.Failure(r) {
		if f == "budget" || strings.HasPrefix(f, "missing:") {
			continue
		}
		out = append(out, f)
	}
	return out
}

// judge merges one run's outcome; done reports a finding.
func (h *hunter) judge(out *outcome) (done bool, err error) {
	if out.err != nil {
		return false, fmt.Errorf("run %d (seed %d): %v", h.res.Runs, out.s.seed, out.err)
	}
	idx := h.res.Runs
	h.res.Runs++
	h.res.SimTime += out.simTime
	h.res.ByStrategy[out.s.strategy]++
	if out.exhaust {
		h.res.Exhausted++
	}
	grew := out.probe != nil && h.reach.merge(out.probe)
	if grew && containsStrategy(h.o.Strategies, StrategyFeedback) {
		if len(h.corpus) == maxCorpus {
			h.corpus = h.corpus[1:]
		}
		h.corpus = append(h.corpus, out.s.clone())
	}
	found := len(out.failure) > 0
	if h.o.OnRun != nil {
		h.o.OnRun(RunInfo{Index: idx, Strategy: out.s.strategy, Seed: out.s.seed, Hash: out.hash, Finding: found, Failure: out.failure, NewCoverage: grew})
	}
	if !found {
		return false, nil
	}
	h.res.Found, h.res.Strategy, h.res.Seed, h.res.Failure, h.res.Check = true, out.s.strategy, out.s.seed, out.failure, out.failure[0]
	h.progress(true)
	h.repro(out)
	return true, nil
}

// progress prints a progress line every progressEvery (or now, with force).
func (h *hunter) progress(force bool) {
	w := h.o.Progress
	if w == nil || !force && time.Since(h.lastLine) < progressEvery {
		return
	}
	h.lastLine = time.Now()
	el := time.Since(h.started)
	fmt.Fprintf(w, "hunt: runs %d in %v (%.0f/s), %v simulated; %s\n", h.res.Runs, el.Round(time.Millisecond),
		float64(h.res.Runs)/max(el.Seconds(), 1e-9), h.res.SimTime.Round(time.Second), h.reach.coverage(0, 0, len(h.corpus)).short())
}

// short is the coverage in a few words, for progress lines.
func (c Coverage) short() string {
	return fmt.Sprintf("%d events, %d pairs, %d transitions reached", len(c.Events), len(c.Pairs), c.Edges)
}
