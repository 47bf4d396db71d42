package simrun

import (
	"os"
	"time"

	"github.com/electsim/electsim/registry"
	"github.com/electsim/electsim/sim"
	"github.com/electsim/electsim/simrun/worker"
)

// hostileStores is a user's algorithm (no InProcess) with lease stores,
// whose descriptor's own functions misbehave, for the hostile corpus
// (hostile_usercode_test.go). Its nodes never lead.
//
// registry.Algorithm.LeaseStores, which the scenario loader calls to
// place the service nodes a file's faults name (store2…), by
// stores_bug: 0 says 3 stores; 1 os.Exit(7); 2 never returns; 3 panics.
//
// registry.Algorithm.DriftMargin (simrun margin), by margin_bug: none
// (a bound that grows with the rate), exit (os.Exit(7)), block, panic.
//
// Its factory, by parent_exit: os.Exit(7) outside a worker process
// (worker.IsWorker), where simrun margin ran its runs until round six.
const hostileStores = "hostile-stores"

// hostileMisbehave does what a bug name says: exit, block or panic.
func hostileMisbehave(bug string) {
	switch bug {
	case "exit":
		os.Exit(7)
	case "block":
		var never chan struct{}
		<-never
	case "panic":
		panic("hostile-stores: " + bug)
	}
}

func init() {
	storeBugs := []string{"none", "exit", "block", "panic"}
	registry.Default.MustRegister(registry.Algorithm{
		Name: hostileStores, Doc: "throwaway: a user algorithm whose lease store count and drift margin misbehave (hostile corpus)", Package: "hostilestores",
		LeaseStore: true,
		Params: []registry.Param{
			{Key: "stores_bug", Kind: registry.Int, Min: 0, Max: 3, Single: true, Doc: "how LeaseStores misbehaves: 0 none, 1 exit, 2 block, 3 panic"},
			{Key: "margin_bug", Kind: registry.Enum, Enum: storeBugs, Doc: "how DriftMargin misbehaves"},
			{Key: "parent_exit", Kind: registry.Bool, Doc: "its factory calls os.Exit(7) outside a worker process"},
		},
		LeaseStores: func(v registry.Values) int {
			if v.Has("stores_bug") {
				hostileMisbehave(storeBugs[v.Int("stores_bug")])
			}
			return 3
		},
		DriftMargin: func(v registry.Values, rate float64, _, _ time.Duration) (registry.Margin, bool) {
			if v.Has("margin_bug") {
				hostileMisbehave(v.String("margin_bug"))
			}
			over := time.Duration(max(0, rate-1.2) * float64(time.Second))
			return registry.Margin{Overlap: over, SafeRate: 1.2, Formula: "max(0, rate − 1.2) s"}, true
		},
		Build: func(v registry.Values, _ int, _ *sim.Rand) (registry.Factory, error) {
			return func([]sim.NodeID, registry.Services) sim.Node {
				if v.Has("parent_exit") && v.Bool("parent_exit") && !worker.IsWorker() {
					os.Exit(7) // only where a margin study's runs ran before round six: its own process
				}
				return &hostileNode{bug: "none"}
			}, nil
		},
	})
}
