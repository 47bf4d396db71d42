package scenario

import (
	"fmt"

	"github.com/electsim/electsim/algorithms/lease"
	"github.com/electsim/electsim/cron"
	"github.com/electsim/electsim/faults"
	"github.com/electsim/electsim/sim"
)

// addCandidates adds n1..nN. Candidates are built afresh on every boot
// (sim.AddFreshNode): a crash loses all volatile state by construction.
func (r *Run) addCandidates(p *buildPlan) {
	build := r.candidateBuilder(p)
	for i := 0; i < r.Scenario.Nodes; i++ {
		r.Sim.AddFreshNode(fmt.Sprintf("n%d", i+1), build, sim.Fsync(r.Scenario.Fsync))
	}
}

// candidateBuilder is what a candidate is in this run's mode: the cron
// layer's own node (ShedLock, Celery's beat), the algorithm's node inside
// the cron layer's scheduler of the mode, or the bare algorithm node.
func (r *Run) candidateBuilder(p *buildPlan) func() sim.Node {
	sc, factory := r.Scenario, p.factory
	switch {
	case p.shedlock:
		return func() sim.Node { return cron.NewShedLockNode(r.CronConfig) }
	case p.celery:
		return func() sim.Node { return cron.NewBeat(r.CronConfig) }
	case r.CronConfig != nil && sc.queueMode() && r.CronConfig.Queue.Colocated:
		return func() sim.Node { return cron.NewColocated(factory(r.Candidates, r.StoreIDs), r.CronConfig) }
	case r.CronConfig != nil && sc.queueMode():
		return func() sim.Node { return cron.NewScheduler(factory(r.Candidates, r.StoreIDs), r.CronConfig) }
	case r.CronConfig != nil && sc.kubeMode():
		return func() sim.Node { return cron.NewControllerManager(factory(r.Candidates, r.StoreIDs), r.CronConfig) }
	case r.CronConfig != nil:
		return func() sim.Node { return cron.Wrap(factory(r.Candidates, r.StoreIDs), r.CronConfig) }
	}
	return func() sim.Node { return factory(r.Candidates, r.StoreIDs) }
}

// addServices adds the service nodes in the order of their IDs: the first
// lease store, the fenced resource, the other lease stores, then the cron
// mode's own services and workers.
func (r *Run) addServices(p *buildPlan) error {
	if p.stores > 0 {
		if err := r.addFirstStore(p); err != nil {
			return err
		}
	}
	if r.CronConfig != nil {
		_, r.Resource = cron.AddResource(r.Sim, "resource", r.CronConfig.Jobs, r.CronConfig.Policy)
	}
	for k := 2; k <= p.stores; k++ {
		st, err := r.newLeaseStore(p, k)
		if err != nil {
			return err
		}
		if id := r.Sim.AddNode(storeName(k), st, r.storeOptions(p.spec, p.shedlock)...); id != r.StoreIDs[k-1] {
			return fmt.Errorf("internal: store %d got node ID %d, want %d", k, id, r.StoreIDs[k-1])
		}
		r.Stores = append(r.Stores, st)
	}
	return r.addModeNodes(p)
}

// addFirstStore adds the node "store": the first lease store, or the
// algorithm's own service when it brings one (a simulated etcd).
func (r *Run) addFirstStore(p *buildPlan) error {
	st, err := r.newLeaseStore(p, 1)
	if err != nil {
		return err
	}
	r.Store = st
	if d := findAlgo(p.spec.Name); d != nil && d.NewStore != nil && !p.shedlock {
		// The algorithm brings its own service (a simulated etcd); its
		// parameters take no ranges (they are read at their minimum).
		st, ok := d.NewStore(p.spec.draw(nil, -1)).(faults.StoreService)
		if !ok {
			return fmt.Errorf("algorithm %s: its store node is not a faults.StoreService", p.spec.Name)
		}
		r.Store = st
	}
	r.Sim.AddNode("store", r.Store, r.storeOptions(p.spec, p.shedlock)...)
	r.Stores = append(r.Stores, r.Store)
	return nil
}

// newLeaseStore builds lease store k (1-based) with the algorithm's
// per-store settings, if it has any (NewLeaseStore).
func (r *Run) newLeaseStore(p *buildPlan, k int) (faults.StoreService, error) {
	d := findAlgo(p.spec.Name)
	if d == nil || d.NewLeaseStore == nil || p.shedlock {
		return lease.NewStore(lease.StoreConfig{}), nil
	}
	st, ok := d.NewLeaseStore(p.spec.draw(nil, -1), k).(faults.StoreService)
	if !ok {
		return nil, fmt.Errorf("algorithm %s: its lease store node is not a faults.StoreService", p.spec.Name)
	}
	return st, nil
}

// addModeNodes adds the services and workers of the cron mode: queue
// mode's queue, execution store and workers, Celery's Redis, Kubernetes'
// API server and kubelets.
func (r *Run) addModeNodes(p *buildPlan) error {
	sc := r.Scenario
	if sc.queueMode() {
		if err := r.addQueueNodes(); err != nil {
			return err
		}
	}
	if p.celery {
		if err := r.addCeleryNodes(); err != nil {
			return err
		}
	}
	if sc.kubeMode() {
		if err := r.addKubeNodes(); err != nil {
			return err
		}
	}
	return nil
}
