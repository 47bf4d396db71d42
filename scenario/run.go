package scenario

import (
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/electsim/electsim/algorithms/lease"
	"github.com/electsim/electsim/checker"
	"github.com/electsim/electsim/contract"
	"github.com/electsim/electsim/cron"
	"github.com/electsim/electsim/faults"
	"github.com/electsim/electsim/sim"
)

// RunOptions choose one run of a scenario.
type RunOptions struct {
	// Seed is the run's seed.
	Seed uint64
	// Algorithm overrides the scenario's algorithm (simrun -algo); its
	// parameters then take their defaults. "" keeps the scenario's.
	Algorithm string
	// Sinks receive every trace record as it happens (e.g. a JSON-lines
	// writer), in addition to the run's own recorder.
	Sinks []sim.Sink
	// Replay is the command that reproduces the run, printed with every
	// violation. Default: ReplayCommand, "simrun -scenario FILE -seed N"
	// (Scenario.Program instead of simrun when set).
	Replay string
	// PorcupineTimeout bounds each linearizability check (wall time).
	PorcupineTimeout time.Duration
	// Recorder, if set, records the whole trace into this recorder's buffer
	// (emptied first): memory proportional to the run's events, for tests
	// and exports that need every record (-perfetto). A run needs none to
	// be judged: the checker streams.
	Recorder *sim.Recorder
	// StopAtViolation stops the run at the first violation the checker can
	// decide online (election_safety, split_brain) that would fail the
	// scenario's expect block: simrun -fail-fast. The run then ends with
	// outcome "stopped", skips the settle phase and fails.
	StopAtViolation bool
	// Story makes the checker keep the records that explain violations
	// (checker.Input.KeepStory): every listed violation gets its
	// Explanation, porcupine its visualization and Run.Story the records
	// the timeline draws. Sweeps leave it off and re-run the runs they
	// explain (runs are deterministic).
	Story bool
	// Beat is passed to sim.Config.Beat: a watchdog (simrun's worker
	// processes) reads it to tell a handler that never returns.
	Beat *atomic.Int64
	// Guard is passed to sim.Config.Guard: simrun's worker processes
	// check that no handler starts a goroutine.
	Guard sim.Guard
	// Lean drops what only a run's explicit replay needs: the injector
	// keeps no history of the faults it injected (faults.Injector.ForgetHistory),
	// so a long run's memory does not grow with them. Run.Explicit and
	// Materialize then panic; the verdict, the trace and its hash are the
	// same. Sweeps set it for the runs they only judge.
	Lean bool
	// HistoryLimit, if positive and without Lean, keeps only the first
	// HistoryLimit injected faults in the injector's history
	// (faults.Injector.LimitHistory): Run.Explicit then lists only those.
	// simrun's featured run sets it; shrinking, which replays Explicit,
	// does not.
	HistoryLimit int
	// Abort, if set, abandons the run once it holds true (sim.Config.Abort):
	// the run ends with sim.OutcomeStopped and is not a result.
	Abort *atomic.Bool
	// DiscardAborted skips the checks of a run Abort stopped: its caller
	// throws it away (a hunt's run at the budget's end, a sweep's after a
	// signal), and checking a long run's history takes seconds.
	DiscardAborted bool
}

// Run is one executed run: the simulation, what was injected, and the
// checker's verdict.
type Run struct {
	Scenario  *Scenario
	Seed      uint64
	Algorithm string
	Sim       *sim.Sim
	// Recorder is RunOptions.Recorder (nil if none was given).
	Recorder *sim.Recorder
	// Checker is the streaming checker subscribed to the run.
	Checker  *checker.Checker
	Injector *faults.Injector
	// Candidates are n1..nN.
	Candidates []sim.NodeID
	// StoreID and Store are the lease store (sim.None / nil if none); with
	// several (Redlock's masters), the first.
	StoreID sim.NodeID
	Store   faults.StoreService
	// StoreIDs and Stores are every lease store, the first included.
	StoreIDs []sim.NodeID
	Stores   []faults.StoreService
	// ResourceID and Resource are the fenced resource (sim.None / nil if none).
	ResourceID sim.NodeID
	Resource   *cron.Resource
	// CronConfig is the cron layer's validated configuration (nil if none).
	CronConfig *cron.Config
	// Queue, ExecStore and Workers are queue mode's nodes (nil / empty
	// without cron.mode: queue); Workers are the separate ones, w1..wN
	// (co-located workers are the candidates).
	Queue     *cron.Queue
	ExecStore *cron.ExecStore
	Workers   []sim.NodeID
	// Redis is Celery mode's Redis node (RedBeat's lock and schedule, the broker).
	Redis *cron.Redis
	// APIServer is Kubernetes mode's API server (nil without cron.mode:
	// kubernetes); its kubelets are Workers.
	APIServer *cron.APIServer
	// Counters are the cron mode's per-run counts of its effects (beat
	// exits, runs skipped, Jobs deleted by Replace, …; cron.NewCounters),
	// nil for a mode with none.
	Counters *cron.Counters
	// Contract is what this run's algorithm, with its drawn values, and its
	// cron layer guarantee (registry.Algorithm.Contract, cron.Config.Contract),
	// resolved against the run's network (contract.Contract.Resolve):
	// the checker judges every finding against it.
	Contract contract.Contract
	// Declared is Contract before it was resolved against the network: its
	// guarantees keep their latency terms (a search reads the latency a
	// synchronous model assumes, contract.LatencyTerms.Assume, to draw
	// link faults within it).
	Declared contract.Contract
	// Timescale is the algorithm's longest timeout a fault must outlast to
	// change who leads, with this run's values
	// (registry.Algorithm.Timescale; 0: not declared).
	Timescale time.Duration
	// SettleStart is when the settle phase began.
	SettleStart sim.Time
	// Outcome is how the engine stopped.
	Outcome sim.Outcome
	// Report is the checker's report; OK and Problems judge it against the
	// scenario's expect block.
	Report   checker.Report
	OK       bool
	Problems []string

	concrete *Scenario               // the scenario with this run's draws made concrete (no faults yet)
	standing []checker.StandingFault // faults by configuration (checker.Input.Standing)
}

// AlgorithmName is the algorithm a run uses: the override, the scenario's,
// or "shedlock".
func (sc *Scenario) AlgorithmName(override string) string {
	switch {
	case override != "":
		return override
	case sc.Cron != nil && sc.Cron.Mode == "shedlock":
		return "shedlock"
	case sc.celeryMode():
		return "celery"
	}
	return sc.Algorithm.Name
}

// Build assembles (but does not run) the simulation for one seed.
func (sc *Scenario) Build(opts RunOptions) (*Run, error) {
	if sc.LeaseStoresPending() {
		return nil, sc.errPending()
	}
	r := &Run{Scenario: sc, Seed: opts.Seed, Algorithm: sc.AlgorithmName(opts.Algorithm), StoreID: sim.None, ResourceID: sim.None}
	params := sim.NewRand(opts.Seed, "params")
	spec := sc.Algorithm
	if opts.Algorithm != "" && opts.Algorithm != sc.Algorithm.Name {
		if findAlgo(opts.Algorithm) == nil {
			return nil, fmt.Errorf("unknown algorithm %q (one of %v)", opts.Algorithm, Algorithms())
		}
		var err error
		if spec, err = sc.specFor(opts.Algorithm); err != nil {
			return nil, fmt.Errorf("algorithm %s: %v", opts.Algorithm, err)
		}
	}
	shedlock := sc.Cron != nil && sc.Cron.Mode == "shedlock"
	celery := sc.celeryMode()
	stores := spec.leaseStores()
	if shedlock {
		stores = 1
	}
	if own := sc.storeCount(); stores != own && sc.namesService {
		return nil, fmt.Errorf("algorithm %s: its runs have %d lease store(s) where %s's have %d, which moves the service nodes this scenario's faults name (store2, resource in a partition, queue, w1, apiserver, …); name the algorithm in the file instead (algorithm: {name: %s})",
			spec.Name, stores, sc.Algorithm.Name, own, spec.Name)
	}
	hasStore := stores > 0

	total := sc.Duration + sc.Settle.For
	drop := pickFloat(sc.Network.DropLo, sc.Network.DropHi, params, 0)
	dup := pickFloat(sc.Network.DupLo, sc.Network.DupHi, params, 0)
	s := sim.New(sim.Config{
		Seed: opts.Seed, WallStart: sc.Start, MaxTime: total + time.Minute, MaxEvents: sc.MaxEvents, MaxEventRate: sc.MaxEventRate, Beat: opts.Beat, Abort: opts.Abort, Guard: opts.Guard,
		Link: sim.LinkConfig{Latency: sc.Network.Latency, FIFO: sc.Network.FIFO, Drop: drop, Duplicate: dup},
	})
	r.Sim = s
	n := sc.Nodes
	r.Candidates = candidateIDs(n)
	next := sim.NodeID(n)
	if hasStore {
		r.StoreID = next
		next++
		r.StoreIDs = append(r.StoreIDs, r.StoreID)
		for k := 2; k <= stores; k++ {
			r.StoreIDs = append(r.StoreIDs, extraStoreID(k, n, sc.Cron != nil))
		}
	}
	if sc.Cron != nil {
		r.ResourceID = next
		cfg := sc.Cron.Config
		// The job table is the run's own: Validate writes each job's parsed
		// schedule, and parallel runs of one scenario must not share it.
		cfg.Jobs = slices.Clone(sc.Cron.Config.Jobs)
		cfg.Resource = r.ResourceID
		cfg.NotBefore = sc.Start
		cfg.ShedLock.Store = r.StoreID
		if sc.queueMode() {
			base := sc.queueBaseWith(stores)
			cfg.Queue.Queue, cfg.Queue.ExecStore = base, base+1
			cfg.Queue.WorkerNodes = nil
			if cfg.Queue.Colocated {
				cfg.Queue.WorkerNodes = append(cfg.Queue.WorkerNodes, r.Candidates...)
			}
			for k := 1; k <= cfg.Queue.Workers; k++ {
				cfg.Queue.WorkerNodes = append(cfg.Queue.WorkerNodes, base+1+sim.NodeID(k))
			}
		}
		if celery {
			sc.celeryNodes(&cfg)
		}
		if sc.kubeMode() {
			sc.kubeNodeIDs(&cfg, sc.queueBaseWith(stores))
		}
		if d := findAlgo(spec.Name); d != nil && !shedlock && !celery {
			cfg.StateBase = len(d.States) // the cron layer's states follow the algorithm's
		}
		if err := cfg.Validate(); err != nil {
			return nil, err
		}
		r.CronConfig = &cfg
	}
	var factory NodeFactory
	r.concrete = &Scenario{}
	*r.concrete = *sc
	r.concrete.Algorithm = spec
	if !shedlock && !celery {
		var err error
		if factory, r.concrete.Algorithm, err = spec.factory(n, params); err != nil {
			return nil, fmt.Errorf("algorithm %s: %v", spec.Name, err)
		}
		vals := r.concrete.Algorithm.draw(nil, -1)
		r.Contract = findAlgo(spec.Name).ContractOf(vals)
		r.Timescale = findAlgo(spec.Name).TimescaleOf(vals)
	}
	r.resolveContract(shedlock)
	// Candidates are built afresh on every boot (sim.AddFreshNode): a
	// crash loses all volatile state by construction.
	var build func() sim.Node
	switch {
	case shedlock:
		build = func() sim.Node { return cron.NewShedLockNode(r.CronConfig) }
	case celery:
		build = func() sim.Node { return cron.NewBeat(r.CronConfig) }
	case r.CronConfig != nil && sc.queueMode() && r.CronConfig.Queue.Colocated:
		build = func() sim.Node { return cron.NewColocated(factory(r.Candidates, r.StoreIDs), r.CronConfig) }
	case r.CronConfig != nil && sc.queueMode():
		build = func() sim.Node { return cron.NewScheduler(factory(r.Candidates, r.StoreIDs), r.CronConfig) }
	case r.CronConfig != nil && sc.kubeMode():
		build = func() sim.Node { return cron.NewControllerManager(factory(r.Candidates, r.StoreIDs), r.CronConfig) }
	case r.CronConfig != nil:
		build = func() sim.Node { return cron.Wrap(factory(r.Candidates, r.StoreIDs), r.CronConfig) }
	default:
		build = func() sim.Node { return factory(r.Candidates, r.StoreIDs) }
	}
	for i := 0; i < n; i++ {
		s.AddFreshNode(fmt.Sprintf("n%d", i+1), build, sim.Fsync(sc.Fsync))
	}
	// newLeaseStore builds lease store k (1-based) with the algorithm's
	// per-store settings, if it has any (NewLeaseStore).
	newLeaseStore := func(k int) (faults.StoreService, error) {
		d := findAlgo(spec.Name)
		if d == nil || d.NewLeaseStore == nil || shedlock {
			return lease.NewStore(lease.StoreConfig{}), nil
		}
		st, ok := d.NewLeaseStore(spec.draw(nil, -1), k).(faults.StoreService)
		if !ok {
			return nil, fmt.Errorf("algorithm %s: its lease store node is not a faults.StoreService", spec.Name)
		}
		return st, nil
	}
	if hasStore {
		st, err := newLeaseStore(1)
		if err != nil {
			return nil, err
		}
		r.Store = st
		if d := findAlgo(spec.Name); d != nil && d.NewStore != nil && !shedlock {
			// The algorithm brings its own service (a simulated etcd); its
			// parameters take no ranges (they are read at their minimum).
			st, ok := d.NewStore(spec.draw(nil, -1)).(faults.StoreService)
			if !ok {
				return nil, fmt.Errorf("algorithm %s: its store node is not a faults.StoreService", spec.Name)
			}
			r.Store = st
		}
		s.AddNode("store", r.Store, r.storeOptions(spec, shedlock)...)
		r.Stores = append(r.Stores, r.Store)
	}
	if r.CronConfig != nil {
		_, r.Resource = cron.AddResource(s, "resource", r.CronConfig.Jobs, r.CronConfig.Policy)
	}
	for k := 2; k <= stores; k++ {
		st, err := newLeaseStore(k)
		if err != nil {
			return nil, err
		}
		if id := s.AddNode(storeName(k), st, r.storeOptions(spec, shedlock)...); id != r.StoreIDs[k-1] {
			return nil, fmt.Errorf("internal: store %d got node ID %d, want %d", k, id, r.StoreIDs[k-1])
		}
		r.Stores = append(r.Stores, st)
	}
	if sc.queueMode() {
		if err := r.addQueueNodes(); err != nil {
			return nil, err
		}
	}
	if celery {
		if err := r.addCeleryNodes(); err != nil {
			return nil, err
		}
	}
	if sc.kubeMode() {
		if err := r.addKubeNodes(); err != nil {
			return nil, err
		}
	}
	// Faults the run suffers by configuration, before the checker is
	// subscribed: they reach the contract's exceptions from time 0.
	if drop > 0 || dup > 0 {
		r.standing = append(r.standing, checker.StandingFault{Class: contract.Loss, Node: sim.None})
	}
	r.concrete.Network.DropLo, r.concrete.Network.DropHi = drop, drop
	r.concrete.Network.DupLo, r.concrete.Network.DupHi = dup, dup
	r.concrete.Clocks = nil
	for _, c := range sc.Clocks {
		cc := ClockSpec{Node: c.Node}
		if off := pickDur(c.OffsetLo, c.OffsetHi, params, 0); off != 0 {
			r.standing = append(r.standing, checker.StandingFault{Class: contract.ClockStep, Node: c.Node})
			s.StepWall(c.Node, off)
			cc.OffsetLo, cc.OffsetHi = off, off
		}
		if c.RateLo != 0 {
			v := pickFloat(c.RateLo, c.RateHi, params, 0)
			if v != 1 {
				r.standing = append(r.standing, checker.StandingFault{Class: contract.ClockRate, Node: c.Node})
			}
			s.SetRate(c.Node, sim.Rate(v))
			cc.RateLo, cc.RateHi = v, v
		}
		if c.MonoRateLo != 0 {
			v := pickFloat(c.MonoRateLo, c.MonoRateHi, params, 0)
			if v != 1 {
				r.standing = append(r.standing, checker.StandingFault{Class: contract.ClockRate, Node: c.Node})
			}
			s.SetMonoRate(c.Node, sim.Rate(v))
			cc.MonoRateLo, cc.MonoRateHi = v, v
		}
		if c.WallRateLo != 0 {
			v := pickFloat(c.WallRateLo, c.WallRateHi, params, 0)
			if v != 1 {
				r.standing = append(r.standing, checker.StandingFault{Class: contract.ClockRate, Node: c.Node})
			}
			s.SetWallRate(c.Node, sim.Rate(v))
			cc.WallRateLo, cc.WallRateHi = v, v
		}
		r.concrete.Clocks = append(r.concrete.Clocks, cc)
	}
	for _, ls := range sc.Network.Links {
		c := s.Link(ls.From, ls.To)
		if ls.Latency != nil {
			c.Latency = *ls.Latency
		}
		if ls.Drop != nil {
			c.Drop = *ls.Drop
		}
		if ls.Dup != nil {
			c.Duplicate = *ls.Dup
		}
		if ls.FIFO != nil {
			c.FIFO = *ls.FIFO
		}
		if ls.Latency != nil || ls.FIFO != nil {
			r.standing = append(r.standing, checker.StandingFault{Class: contract.Link, Node: sim.None})
		}
		if c.Drop > 0 || c.Duplicate > 0 {
			r.standing = append(r.standing, checker.StandingFault{Class: contract.Loss, Node: sim.None})
		}
		s.SetLink(ls.From, ls.To, c)
		if ls.Both {
			s.SetLink(ls.To, ls.From, c)
		}
	}
	r.Recorder = opts.Recorder
	if r.Recorder != nil {
		r.Recorder.Records = r.Recorder.Records[:0]
		s.AddSink(r.Recorder)
	}
	in := r.checkerInput(opts)
	if opts.StopAtViolation {
		hasResource := r.Resource != nil
		in.OnViolation = func(check string) {
			if sc.Expect.Fails(check, hasResource) {
				s.Stop()
			}
		}
	}
	r.Checker = checker.New(in)
	s.AddSink(r.Checker)
	if sc.Cron != nil {
		if r.Counters = cron.NewCounters(sc.Cron.Mode); r.Counters != nil {
			s.AddSink(r.Counters)
		}
	}
	for _, k := range opts.Sinks {
		s.AddSink(k)
	}
	env := faults.Environment{Candidates: r.Candidates, Store: r.StoreID, Resource: r.ResourceID}
	env.StoreNode = r.Store
	if d := findAlgo(r.Algorithm); d != nil && !shedlock {
		env.States = d.States
	}
	if r.CronConfig != nil {
		// The cron layer's step states, after the algorithm's (at
		// CronConfig.StateBase), reported by its services and workers too.
		cs := r.CronConfig.States()
		env.States = append(append([]string(nil), env.States...), cs...)
		env.CronStates = len(cs)
	}
	if r.Queue != nil {
		env.QueueMode = &faults.QueueNodes{Queue: r.CronConfig.Queue.Queue, ExecStore: r.CronConfig.Queue.ExecStore, Workers: r.CronConfig.Queue.WorkerNodes}
	}
	if r.APIServer != nil {
		// The kubelets are the workers (target: workers, busy_worker); the
		// queue and execution-store roles are refused at load time.
		env.QueueMode = &faults.QueueNodes{Queue: sim.None, ExecStore: sim.None, Workers: r.CronConfig.Kube.KubeletNodes}
	}
	inj, err := faults.New(s, env,
		sc.Faults, sc.Nemeses)
	if err != nil {
		return nil, err
	}
	if opts.Lean {
		inj.ForgetHistory()
	} else if opts.HistoryLimit > 0 {
		inj.LimitHistory(opts.HistoryLimit)
	}
	r.Injector = inj
	return r, nil
}

// Execute runs the fault phase, then settle (every fault reverted), then
// judges the run.
func (r *Run) Execute(opts RunOptions) {
	sc := r.Scenario
	s := r.Sim
	r.Outcome = s.RunUntil(sim.Time(sc.Duration))
	if !r.Outcome.Exhausted() && r.Outcome != sim.OutcomeStopped && r.Outcome != sim.OutcomeCrashed {
		r.SettleStart = s.Now()
		r.Injector.Settle(s.Now())
		r.Outcome = s.RunFor(sc.Settle.For)
	}
	s.End()
	if opts.DiscardAborted && r.Outcome == sim.OutcomeStopped && opts.Abort != nil && opts.Abort.Load() {
		return // not a result: its caller discards it unchecked
	}
	r.check()
}

// Run builds and executes one run of the scenario.
func (sc *Scenario) Run(opts RunOptions) (*Run, error) {
	r, err := sc.Build(opts)
	if err != nil {
		return nil, err
	}
	r.Execute(opts)
	return r, nil
}

// ReplayCommand is the command that reproduces a run: the program
// (Program, default simrun), the file, every -set override it was loaded
// with (shell-quoted), the seed and the algorithm.
func (sc *Scenario) ReplayCommand(seed uint64, algo string) string {
	prog := sc.Program
	if prog == "" {
		prog = "simrun"
	}
	cmd := ShellQuote(prog) + " -scenario " + ShellQuote(sc.File)
	for _, s := range sc.SetsFor(algo) {
		cmd += " -set " + ShellQuote(s)
	}
	cmd += fmt.Sprintf(" -seed %d", seed)
	if algo != "" && algo != sc.AlgorithmName("") {
		cmd += " -algo " + algo
	}
	return cmd
}

// ShellQuote quotes s for a POSIX shell when it needs it: as is when it has
// only characters no shell treats specially, else in single quotes.
func ShellQuote(s string) string {
	if s == "" {
		return "''"
	}
	safe := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-_./=:,@%+", c) >= 0) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// wallLag is how far the slowest candidate's wall clock is behind true
// time when the run ends (0 if none is). Settle reverts clock offsets, but
// time a clock spent running slow stays lost, as it would until NTP stepped
// it; a leader whose clock is behind runs each slot that much later, so the
// slots due in the run's last wallLag are not judged for missed_slots.
func (r *Run) wallLag() time.Duration {
	trueWall := r.Scenario.Start.Add(r.Sim.Now().Duration())
	var lag time.Duration
	for _, id := range r.Candidates {
		lag = max(lag, trueWall.Sub(r.Sim.Clock(id).Wall))
	}
	return lag
}

// checkerInput is what the checker knows before the run starts.
func (r *Run) checkerInput(opts RunOptions) checker.Input {
	sc := r.Scenario
	in := checker.Input{
		Names:            checker.NamesOf(r.Sim),
		Candidates:       r.Candidates,
		WallStart:        sc.Start,
		Replay:           opts.Replay,
		PorcupineTimeout: opts.PorcupineTimeout,
		KeepStory:        opts.Story,
		Contract:         r.Contract,
		Standing:         r.standing,
	}
	if in.Replay == "" {
		in.Replay = sc.ReplayCommand(r.Seed, opts.Algorithm)
	}
	if needsLeaseStore(r.Algorithm) {
		in.LeaseStore = r.StoreIDs
	}
	if r.Queue != nil {
		q := &r.CronConfig.Queue
		in.Exec = &checker.ExecInput{StartDeadline: q.StartDeadline, ForbidOverlap: q.Concurrency == cron.ConcurrencyForbid,
			From: sc.Start, Jobs: r.CronConfig.Jobs}
	}
	if r.APIServer != nil {
		k := &r.CronConfig.Kube
		in.Exec = &checker.ExecInput{StartDeadline: k.StartDeadline, ForbidOverlap: k.Concurrency == cron.KubeForbid,
			From: sc.Start, Jobs: r.CronConfig.Jobs}
	}
	return in
}

// check finishes the streaming checker with what is known only after the
// run (the settle phase, the resource's log) and judges the report.
func (r *Run) check() {
	sc := r.Scenario
	in := r.Checker.Input()
	in.FaultEnd, in.SettleStart, in.SettleBound = r.SettleStart, r.SettleStart, sc.Settle.LeaderWithin
	if r.Algorithm == "shedlock" || r.Algorithm == "celery" {
		in.SettleBound = 0 // no election, so no leader to wait for
	}
	var log []cron.LogEntry
	if r.Resource != nil {
		log = r.Resource.Log()
		if log == nil {
			log = []cron.LogEntry{}
		}
		in.Policy = r.CronConfig.Policy
		in.Jobs = r.CronConfig.Jobs
		longest := r.CronConfig.Jobs.LongestRun()
		in.CronFrom = sc.Start
		end := sc.Duration + sc.Settle.For - longest - 2*time.Second - r.wallLag()
		if end > 0 {
			in.CronTo = sc.Start.Add(end)
		}
	}
	if r.Outcome.Exhausted() || r.Outcome == sim.OutcomeStopped || r.Outcome == sim.OutcomeCrashed {
		in.SettleBound = 0
	}
	in.Failure = r.Sim.Failure() // the crashed check; it fails the run unless the expect block allows it
	r.Report = r.Checker.Finish(log)
	r.OK, r.Problems = r.Report.Judge(sc.Expect)
	switch {
	case r.Outcome.Exhausted():
		r.OK = false
		r.Problems = append(r.Problems, fmt.Sprintf("budget exhausted (%s) at t=%v after %d events", r.Outcome, r.Sim.Now(), r.Sim.Stats().Events))
	case r.Outcome == sim.OutcomeStopped:
		r.OK = false
		r.Problems = append(r.Problems, fmt.Sprintf("stopped at t=%v at its first violation (-fail-fast)", r.Sim.Now()))
	}
}

// DefaultAftermath is how long after a fault ends it can still excuse a
// finding when the algorithm states no Aftermath of its own and declares no
// timescale (registry.Algorithm.Timescale): twice the 5 s a hunt assumes
// its faults need (docs/checkers.md, "Excuses").
const DefaultAftermath = 10 * time.Second

// aftermathOf is the excuse window of an algorithm's contract: the longest
// Aftermath a guarantee states, else twice the algorithm's timescale, else
// DefaultAftermath.
func aftermathOf(c contract.Contract, timescale time.Duration) time.Duration {
	var d time.Duration
	for _, g := range c.Guarantees {
		d = max(d, g.Aftermath)
	}
	switch {
	case d > 0:
		return d
	case timescale > 0:
		return 2 * timescale
	}
	return DefaultAftermath
}

// FaultSource names the scheduled fault behind an excuse ("faults[2]",
// "nemesis[0]"): the injection that struck its node (or the network) at
// the excuse's start. Empty when the run kept no fault history
// (faults.Injector.ForgetHistory) or no injection matches (a standing
// fault, or one a test drove by hand).
func (r *Run) FaultSource(e *checker.Excuse) string {
	if r == nil || r.Injector == nil || e == nil {
		return ""
	}
	for _, a := range r.Injector.Applied() {
		if a.At != e.Start {
			continue
		}
		if e.Node == sim.None || len(a.Nodes) == 0 || slices.Contains(a.Nodes, e.Node) {
			return a.Source
		}
	}
	return ""
}

// resolveContract completes the run's contract once the algorithm's is
// known: every guarantee's aftermath (the algorithm's own figure, else
// twice its timescale; the cron layer's promises add its longest run, for
// which a deposed leader's run may go on writing: docs/checkers.md,
// "Excuses"), the cron layer's promises, and the latency terms resolved
// against the run's network (Declared keeps them unresolved).
func (r *Run) resolveContract(shedlock bool) {
	after := aftermathOf(r.Contract, r.Timescale)
	r.Contract = r.Contract.WithAftermath(after)
	if c := r.CronConfig; c != nil {
		cronContract := c.Contract()
		if shedlock {
			cronContract = c.ShedLockContract()
		}
		r.Contract = r.Contract.Merge(cronContract.WithAftermath(after + c.Jobs.LongestRun()))
	}
	r.Declared = r.Contract
	r.Contract = r.Contract.Resolve(networkLatency(r.Scenario))
}

// storeOptions are a lease store node's options: a service, reached over
// TCP when the algorithm says its clients do with these values
// (registry.Algorithm.StoreStreams; ShedLock mode's store is always the
// lease store's datagrams).
func (r *Run) storeOptions(spec AlgorithmSpec, shedlock bool) []sim.NodeOption {
	opts := []sim.NodeOption{sim.Service()}
	if d := findAlgo(spec.Name); d != nil && d.StoreStreams != nil && !shedlock && d.StoreStreams(spec.draw(nil, -1)) {
		opts = append(opts, sim.Streams())
	}
	return opts
}
