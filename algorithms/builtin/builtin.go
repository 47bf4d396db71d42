// Package builtin registers electsim's own algorithms in registry.Default,
// in the order simrun lists them: raft, etcdraft, bully, ring, lease, etcd,
// zookeeper, consul.
// Import it for its effect (the scenario loader does).
package builtin

import (
	"github.com/electsim/electsim/algorithms/bully"
	"github.com/electsim/electsim/algorithms/consulelect"
	"github.com/electsim/electsim/algorithms/etcdelect"
	"github.com/electsim/electsim/algorithms/etcdraft"
	"github.com/electsim/electsim/algorithms/lease"
	"github.com/electsim/electsim/algorithms/raftelect"
	"github.com/electsim/electsim/algorithms/ring"
	"github.com/electsim/electsim/algorithms/zkelect"
	"github.com/electsim/electsim/registry"
)

func init() {
	for _, a := range []registry.Algorithm{raftelect.Descriptor(), etcdraft.Descriptor(), bully.Descriptor(), ring.Descriptor(), lease.Descriptor(), etcdelect.Descriptor(), zkelect.Descriptor(), consulelect.Descriptor()} {
		a.InProcess = true // tested here: simrun sweeps them in its own process unless -isolate
		registry.Default.MustRegister(a)
	}
}
