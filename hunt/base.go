package hunt

import (
	"fmt"
	"strings"

	"github.com/electsim/electsim/registry"
	"github.com/electsim/electsim/scenario"
)

// BaseNodesMin and BaseNodesMax bound the built-in base cluster's size,
// drawn per run.
const (
	BaseNodesMin = 3
	BaseNodesMax = 5
)

// BaseYAML is the built-in base scenario for algorithm algo: a cluster of
// BaseNodesMin candidates (each run draws BaseNodesMin..BaseNodesMax), the
// algorithm with its defaults and its services, the fenced cron layer
// (policy fencing and idempotency, or idempotency alone when the
// algorithm's leaders write without a token), a short fault phase and a
// settle phase. It expects every safety check to hold; liveness, missed
// slots and the leadership history's linearizability are left to the
// contract (a fault schedule can always starve them).
func BaseYAML(algo string, fencing bool) []byte {
	policy := "[fencing, idempotency]"
	if !fencing {
		policy = "[idempotency]"
	}
	return []byte(fmt.Sprintf(`name: hunt-%s
description: simrun hunt's built-in base cluster for %s
seed: 1
duration: 20s
cluster: {nodes: %d}
network: {latency: 1ms..10ms}
algorithm: {name: %s}
cron:
  jobs: [{name: tick, schedule: "@every 2s", duration: 100ms..500ms}]
  policy: %s
settle: {for: 8s, leader_within: 5s}
expect:
  allow: [leader_linearizability, liveness, missed_slots]
`, algo, algo, BaseNodesMin, algo, policy))
}

// base is the loaded base scenario and what the search may vary in it.
type base struct {
	name   string // file name for the loader (a path, or hunt-<algo>)
	src    []byte
	sets   []string // the user's -set overrides
	algo   string   // the algorithm hunted
	over   string   // RunOptions.Algorithm: the override of a file's algorithm
	sc     *scenario.Scenario
	desc   *registry.Algorithm
	nodes  bool     // the search draws the cluster size
	pinned []string // parameter keys the search leaves alone
}

// loadBase reads the base scenario of o.
func loadBase(o *Options) (*base, error) {
	b := &base{sets: o.Sets}
	if o.Scenario != "" {
		src, err := scenario.ReadFile(o.Scenario)
		if err != nil {
			return nil, usagef("%v", err)
		}
		b.name, b.src = o.Scenario, src
	} else {
		if _, ok := registry.Default.Lookup(o.Algo); !ok {
			return nil, usagef("unknown algorithm %q (one of %s)", o.Algo, strings.Join(registry.Default.Names(), ", "))
		}
		b.name, b.src, b.nodes = "hunt-"+o.Algo, BaseYAML(o.Algo, true), true
	}
	sc, err := scenario.ParseWith(b.name, b.src, b.sets)
	if err != nil && o.Scenario == "" {
		// The algorithm's leaders hand no fencing token with these values
		// (registry.Algorithm.Token): the base fences nothing.
		b.src = BaseYAML(o.Algo, false)
		sc, err = scenario.ParseWith(b.name, b.src, b.sets)
	}
	if err != nil {
		return nil, usagef("%v", err)
	}
	b.sc = sc
	b.algo = sc.AlgorithmName(o.Algo)
	if o.Scenario != "" && o.Algo != "" && o.Algo != sc.AlgorithmName("") {
		b.over = o.Algo
	}
	d, ok := registry.Default.Lookup(b.algo)
	if !ok {
		return nil, usagef("unknown algorithm %q (one of %s)", b.algo, strings.Join(registry.Default.Names(), ", "))
	}
	b.desc = d
	for _, s := range o.Sets {
		path, _, _ := strings.Cut(s, "=")
		if k, ok := strings.CutPrefix(strings.TrimSpace(path), "algorithm."); ok {
			b.pinned = append(b.pinned, k)
		}
		if strings.TrimSpace(path) == "cluster.nodes" {
			b.nodes = false
		}
	}
	if b.over == "" {
		for _, kv := range sc.Algorithm.Params() {
			k, _, _ := strings.Cut(kv, "=")
			b.pinned = append(b.pinned, k) // the file sets it: the user chose it
		}
	}
	return b, nil
}

// setsFor returns the -set overrides of a schedule's configuration.
func (b *base) setsFor(nodes int, params []string) []string {
	out := append([]string(nil), b.sets...)
	if nodes > 0 {
		out = append(out, fmt.Sprintf("cluster.nodes=%d", nodes))
	}
	return append(out, params...)
}
