package scenario

import (
	"fmt"

	"github.com/electsim/electsim/registry"
)

// The lease store count of a user algorithm. How many lease store nodes
// a run has decides the node IDs of every service after the first store
// (store2…, the resource, queue mode's and Kubernetes mode's nodes), so
// the loader needs it while it reads fault targets. For an algorithm not
// built into electsim it is the user's code (registry.Algorithm.
// LeaseStores), which a loader that defers user code to a worker process
// (ParseOptions.DeferUserCode) must not call. Such a process reads the
// file twice: first without the count (a target store2…store15 is
// accepted, since only the count decides it; the worker's full read then
// checks it against the real count and refuses it in the same words),
// then, once a worker that read the file in full reported the count
// (ParseOptions.LeaseStores), again with it: that scenario's nodes are
// exact. A scenario read without the count cannot be built
// (LeaseStoresPending): a run with a guessed count would put faults on
// the wrong nodes.

// setStoreCount records, on the file's own algorithm section, the count a
// worker reported (l.stores), or that the loader needed it and had none.
func (l *loader) setStoreCount(spec *AlgorithmSpec) {
	d := findAlgo(spec.Name)
	if d == nil || !d.LeaseStore || d.LeaseStores == nil || l.userCode(d) {
		return
	}
	if l.stores > 0 {
		spec.stores = min(l.stores, registry.MaxLeaseStores)
		return
	}
	spec.pending = true
}

// LeaseStoreCount is how many lease store nodes runs of the scenario under
// its own algorithm have (0: none). A worker process reports it for a
// parent that read the file without the algorithm's code
// (hunt.ClusterResult.LeaseStores, ParseOptions.LeaseStores).
func (sc *Scenario) LeaseStoreCount() int { return sc.storeCount() }

// LeaseStoresPending reports whether the scenario was read without its
// algorithm's code and without the lease store count a worker reports
// (ParseOptions.LeaseStores): its fault targets store2… were checked only
// against registry.MaxLeaseStores, and it cannot be built. Read it again
// with the count.
func (sc *Scenario) LeaseStoresPending() bool {
	return sc.Algorithm.pending && (sc.Cron == nil || sc.Cron.Mode != "shedlock")
}

// storeBound is the highest k of a target "storeK" the loader accepts: the
// store count, or registry.MaxLeaseStores while the count is pending.
func (sc *Scenario) storeBound() int {
	if sc.LeaseStoresPending() {
		return registry.MaxLeaseStores
	}
	return sc.storeCount()
}

// errPending is Build's refusal of a scenario whose lease store count is
// pending.
func (sc *Scenario) errPending() error {
	return fmt.Errorf("%s: the lease store count of algorithm %s is not known in this process (its code runs only in worker processes); read the file again with the count a worker reported (scenario.ParseOptions.LeaseStores)", sc.File, sc.Algorithm.Name)
}
