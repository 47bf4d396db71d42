package hunt

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/electsim/electsim/contract"
	"github.com/electsim/electsim/faults"
	"github.com/electsim/electsim/scenario"
	"github.com/electsim/electsim/sim"
)

// cluster is what a run's faults may aim at: the nodes of one
// configuration of the base.
type cluster struct {
	sc         *scenario.Scenario
	candidates []sim.NodeID
	stores     []sim.NodeID
	resource   sim.NodeID
	states     []string // the algorithm's protocol states
	events     []string // the trigger events this cluster has
	contract   contract.Contract
	declared   contract.Contract // before its latency terms were resolved
	kinds      []string          // the fault kinds drawn on it (kindsFor)
	timescale  time.Duration     // the algorithm's (registry.Algorithm.Timescale; 0: none)
	caveat     string            // what it does not promise (scenario.Scenario.Caveat), from where it was built
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
	c, err := loadCluster(h.ctx, h.o, h.b, h.b.setsFor(nodes, params))
	if err != nil {
		h.clusters[key] = nil
		return nil, err
	}
	h.clusters[key] = c
	return c, nil
}

// loadCluster parses the base with sets and builds (without running) one
// run, to learn its nodes, services, protocol states and contract: in a
// worker process with o.Runner (clusterjob.go).
func loadCluster(ctx context.Context, o *Options, b *base, sets []string) (c *cluster, err error) {
	defer func() {
		if p := recover(); p != nil { // a user algorithm's Build, while the file is parsed (in this process: no Runner)
			c, err = nil, fmt.Errorf("building %s's cluster panicked: %v", b.algo, p)
		}
	}()
	sc, err := parse(o, b.name, b.src, sets)
	if err != nil {
		return nil, err
	}
	sc.Expect = huntExpect(sc.Expect, o.Checks)
	r, err := buildCluster(ctx, o, sc, b.over, b.src, sets)
	if err != nil {
		var died *DiedError
		var le *loadError
		if errors.As(err, &died) || errors.As(err, &le) {
			return nil, err
		}
		return nil, fmt.Errorf("%s: %w", b.algo, err)
	}
	if sc.LeaseStoresPending() {
		// Read without the algorithm's code, which alone knows how many
		// lease stores its runs have: read again with the worker's count
		// (scenario/leasestores.go), so the runs' files name the right nodes.
		if sc, err = parseStores(o, b.name, b.src, sets, r.LeaseStores); err != nil {
			return nil, err
		}
		sc.Expect = huntExpect(sc.Expect, o.Checks)
	}
	c = &cluster{sc: sc, candidates: r.Candidates, stores: r.Stores, resource: r.Resource, states: b.desc.States}
	if r.Algorithm == "shedlock" {
		c.states = nil
	}
	if len(r.CronStates) > 0 {
		// The cron mode's step states follow the algorithm's (the run's
		// env.States, at CronConfig.StateBase): queue, beat and
		// controller steps are cut points too.
		c.states = append(append([]string(nil), c.states...), r.CronStates...)
	}
	for _, ev := range faults.Events() {
		switch ev {
		case faults.EventRenew, faults.EventAcquired, faults.EventExpired:
			if len(c.stores) == 0 {
				continue
			}
		case faults.EventJobStarted, faults.EventJobFinished:
			if !r.HasResource {
				continue
			}
		}
		c.events = append(c.events, ev)
	}
	c.contract, c.declared, c.timescale, c.caveat = r.Contract, r.Declared, r.Timescale, r.Caveat
	c.kinds = kindsFor(o, r.Contract, r.HasStore)
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
		for _, cls := range classesOfKind(k) {
			if !slices.Contains(out, cls) {
				out = append(out, cls)
			}
		}
	}
	return out
}

// assumedLatency is the longest one-way latency the cluster's contract
// assumes (the smallest contract.LatencyTerms.Assume of its guarantees; 0:
// none). Rounded down to the millisecond, as the search draws latencies.
func (c *cluster) assumedLatency() time.Duration {
	var a time.Duration
	for _, g := range c.declared.Guarantees {
		if x := g.Latency.Assume; x > 0 && (a == 0 || x < a) {
			a = x
		}
	}
	return a.Truncate(time.Millisecond)
}
