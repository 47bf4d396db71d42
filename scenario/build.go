package scenario

import (
	"fmt"
	"slices"
	"time"

	"github.com/electsim/electsim/checker"
	"github.com/electsim/electsim/cron"
	"github.com/electsim/electsim/faults"
	"github.com/electsim/electsim/sim"
)

// buildPlan is what Build settles before it adds a node: which algorithm
// the run uses, in which cron mode, with how many lease stores, and the
// seed's parameter stream every drawn value comes from.
type buildPlan struct {
	spec     AlgorithmSpec
	shedlock bool // cron.mode shedlock: ShedLock nodes and one plain lease store
	celery   bool // cron.mode celery: beat nodes, no election algorithm of ours
	stores   int  // how many lease stores the run has
	// params is the seed's "params" stream. Its draws are taken in one
	// fixed order (the network's loss, the algorithm's values, the clocks),
	// so the order of Build's steps is part of every trace hash.
	params *sim.Rand
	// factory builds an algorithm node (nil in ShedLock and Celery mode,
	// whose candidates are the cron layer's own nodes).
	factory NodeFactory
	// drop and dup are the network's drawn loss and duplication.
	drop, dup float64
}

// Build assembles (but does not run) the simulation for one seed: a
// pipeline whose steps each add one part, in the order node IDs are
// given out and parameters are drawn.
func (sc *Scenario) Build(opts RunOptions) (*Run, error) {
	if sc.LeaseStoresPending() {
		return nil, sc.errPending()
	}
	r := &Run{Scenario: sc, Seed: opts.Seed, Algorithm: sc.AlgorithmName(opts.Algorithm), StoreID: sim.None, ResourceID: sim.None}
	p, err := sc.planBuild(opts)
	if err != nil {
		return nil, err
	}
	r.newSim(p, opts)
	r.assignStoreIDs(p)
	if err := r.configureCron(p); err != nil {
		return nil, err
	}
	if err := r.concretize(p); err != nil {
		return nil, err
	}
	r.addCandidates(p)
	if err := r.addServices(p); err != nil {
		return nil, err
	}
	r.applyStandingFaults(p)
	r.subscribe(opts)
	if err := r.newInjector(opts, p.shedlock); err != nil {
		return nil, err
	}
	return r, nil
}

// planBuild picks the algorithm spec (the scenario's, or the -algo
// override's with its defaults) and the number of lease stores, and
// refuses an override that would renumber the service nodes the
// scenario's faults name.
func (sc *Scenario) planBuild(opts RunOptions) (*buildPlan, error) {
	p := &buildPlan{params: sim.NewRand(opts.Seed, "params")}
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
	p.spec = spec
	p.shedlock = sc.Cron != nil && sc.Cron.Mode == "shedlock"
	p.celery = sc.celeryMode()
	stores := spec.leaseStores()
	if p.shedlock {
		stores = 1
	}
	if own := sc.storeCount(); stores != own && sc.namesService {
		return nil, fmt.Errorf("algorithm %s: its runs have %d lease store(s) where %s's have %d, which moves the service nodes this scenario's faults name (store2, resource in a partition, queue, w1, apiserver, …); name the algorithm in the file instead (algorithm: {name: %s})",
			spec.Name, stores, sc.Algorithm.Name, own, spec.Name)
	}
	p.stores = stores
	return p, nil
}

// newSim draws the network's loss (the first draws of the params stream)
// and creates the engine, which runs past the settle phase by a minute so
// the run, not the engine's limit, decides when it ends.
func (r *Run) newSim(p *buildPlan, opts RunOptions) {
	sc := r.Scenario
	total := sc.Duration + sc.Settle.For
	p.drop = pickFloat(sc.Network.DropLo, sc.Network.DropHi, p.params, 0)
	p.dup = pickFloat(sc.Network.DupLo, sc.Network.DupHi, p.params, 0)
	r.Sim = sim.New(sim.Config{
		Seed: opts.Seed, WallStart: sc.Start, MaxTime: total + time.Minute, MaxEvents: sc.MaxEvents, MaxEventRate: sc.MaxEventRate, Beat: opts.Beat, Abort: opts.Abort, Guard: opts.Guard,
		Link: sim.LinkConfig{Latency: sc.Network.Latency, FIFO: sc.Network.FIFO, Drop: p.drop, Duplicate: p.dup},
	})
}

// assignStoreIDs numbers the candidates n1..nN (node IDs 0..N-1) and the
// lease stores: the first right after them, the others where
// extraStoreID puts them (after the cron layer's services, so a
// scenario's service names keep their IDs).
func (r *Run) assignStoreIDs(p *buildPlan) {
	n := r.Scenario.Nodes
	r.Candidates = candidateIDs(n)
	if p.stores > 0 {
		r.StoreID = sim.NodeID(n)
		r.StoreIDs = append(r.StoreIDs, r.StoreID)
		for k := 2; k <= p.stores; k++ {
			r.StoreIDs = append(r.StoreIDs, extraStoreID(k, n, r.Scenario.Cron != nil))
		}
	}
}

// configureCron completes and validates the cron layer's configuration
// with this run's node IDs: the resource, the store ShedLock locks in,
// and each mode's own services and workers.
func (r *Run) configureCron(p *buildPlan) error {
	sc := r.Scenario
	if sc.Cron == nil {
		return nil
	}
	r.ResourceID = sim.NodeID(sc.Nodes)
	if p.stores > 0 {
		r.ResourceID++
	}
	cfg := sc.Cron.Config
	// The job table is the run's own: Validate writes each job's parsed
	// schedule, and parallel runs of one scenario must not share it.
	cfg.Jobs = slices.Clone(sc.Cron.Config.Jobs)
	cfg.Resource = r.ResourceID
	cfg.NotBefore = sc.Start
	cfg.ShedLock.Store = r.StoreID
	if sc.queueMode() {
		r.queueNodeIDs(&cfg, sc.queueBaseWith(p.stores))
	}
	if p.celery {
		sc.celeryNodes(&cfg)
	}
	if sc.kubeMode() {
		sc.kubeNodeIDs(&cfg, sc.queueBaseWith(p.stores))
	}
	if d := findAlgo(p.spec.Name); d != nil && !p.shedlock && !p.celery {
		cfg.StateBase = len(d.States) // the cron layer's states follow the algorithm's
	}
	if err := cfg.Validate(); err != nil {
		return err
	}
	r.CronConfig = &cfg
	return nil
}

// queueNodeIDs places queue mode's services at base (the queue) and
// base+1 (the execution store), its separate workers after them; the
// co-located workers are the candidates.
func (r *Run) queueNodeIDs(cfg *cron.Config, base sim.NodeID) {
	cfg.Queue.Queue, cfg.Queue.ExecStore = base, base+1
	cfg.Queue.WorkerNodes = nil
	if cfg.Queue.Colocated {
		cfg.Queue.WorkerNodes = append(cfg.Queue.WorkerNodes, r.Candidates...)
	}
	for k := 1; k <= cfg.Queue.Workers; k++ {
		cfg.Queue.WorkerNodes = append(cfg.Queue.WorkerNodes, base+1+sim.NodeID(k))
	}
}

// concretize copies the scenario into the run's concrete one and, for an
// election algorithm of ours, draws its values (the factory), then states
// the contract the checker judges the run against.
func (r *Run) concretize(p *buildPlan) error {
	r.concrete = &Scenario{}
	*r.concrete = *r.Scenario
	r.concrete.Algorithm = p.spec
	if !p.shedlock && !p.celery {
		var err error
		if p.factory, r.concrete.Algorithm, err = p.spec.factory(r.Scenario.Nodes, p.params); err != nil {
			return fmt.Errorf("algorithm %s: %v", p.spec.Name, err)
		}
		vals := r.concrete.Algorithm.draw(nil, -1)
		r.Contract = findAlgo(p.spec.Name).ContractOf(vals)
		r.Timescale = findAlgo(p.spec.Name).TimescaleOf(vals)
	}
	r.resolveContract(p.shedlock)
	return nil
}

// subscribe attaches what reads the trace as it happens: the optional
// full recorder, the streaming checker (which may stop the run at a
// violation the expect block fails on), the cron mode's counters and the
// caller's sinks, in that order.
func (r *Run) subscribe(opts RunOptions) {
	s, sc := r.Sim, r.Scenario
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
}

// newInjector tells the fault injector which node plays which role (and
// the state names it may read from them) and schedules the scenario's
// faults and nemeses.
func (r *Run) newInjector(opts RunOptions, shedlock bool) error {
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
	inj, err := faults.New(r.Sim, env, r.Scenario.Faults, r.Scenario.Nemeses)
	if err != nil {
		return err
	}
	if opts.Lean {
		inj.ForgetHistory()
	} else if opts.HistoryLimit > 0 {
		inj.LimitHistory(opts.HistoryLimit)
	}
	r.Injector = inj
	return nil
}
