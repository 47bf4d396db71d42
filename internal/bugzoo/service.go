package bugzoo

import (
	"time"

	"github.com/electsim/electsim/registry"
	"github.com/electsim/electsim/sim"
)

// serviceBugs are the variants of the algorithms that elect through a
// coordination service (etcd, ZooKeeper, Consul).
func serviceBugs() []Bug {
	return []Bug{
		{
			Name: "zoo-etcd-lead-on-delete", Base: "etcd", Catches: "split_brain",
			Summary:  "an etcd election candidate leads when the key it waits behind is deleted, not when no older key is left",
			Citation: "etcd client/v3/concurrency election.go Campaign → waitDeletes (loops until no key with a lower create revision remains); etcd-io/etcd#11051 (Campaign returning after a wait although the candidate was not first); ZooKeeper recipes, \"Leader Election\" (lead only when your znode is the smallest)",
			Scenario: "etcd-lead-on-delete.yaml",
			wrap: onBase(func(f registry.Factory, v registry.Values) registry.Factory {
				return hooked(f, func(nd sim.Node) {
					hook[interface{ ZooLeadOnPredecessorDelete() }](nd, "ZooLeadOnPredecessorDelete hook").ZooLeadOnPredecessorDelete()
				})
			}),
		},
		{
			Name: "zoo-zk-standard-ignores-suspended", Base: "zookeeper", Catches: "split_brain",
			Summary:  "a LeaderLatch configured with Curator's standard error policy keeps leading through SUSPENDED (the policy is not applied)",
			Citation: "apache/curator#980 (CURATOR-460: tolerating SUSPENDED leads to simultaneous leaders); apache/druid#16528 (two Druid coordinators leading: the latch was not reset on SUSPENDED/LOST); Curator TN10",
			Scenario: "zk-suspended.yaml",
			wrap: func(base buildFunc, v registry.Values, n int, r *sim.Rand) (registry.Factory, error) {
				if v.Has("policy") && v.String("policy") != "standard" {
					return base(v, n, r)
				}
				return base(misread{Values: v, strings: map[string]string{"policy": "session"}}, n, r)
			},
		},
		{
			Name: "zoo-consul-no-lock-delay", Base: "consul", Catches: "split_brain", NeedsContract: true,
			Summary:  "a Consul lock's session is created without the lock-delay the application set (the client sends 0)",
			Citation: "hashicorp/consul#1843 (a holder cut off the servers kept running its child process beside the new holder for 30 s to minutes; lock-delay is what keeps the next holder out meanwhile); Consul docs, Sessions: lock-delay (default 15 s), after Chubby's lock-delay (Burrows, OSDI 2006, §2.4)",
			Scenario: "consul-no-lock-delay.yaml",
			wrap: func(base buildFunc, v registry.Values, n int, r *sim.Rand) (registry.Factory, error) {
				return base(misread{Values: v, durations: map[string]time.Duration{"lock_delay": 0}}, n, r)
			},
		},
	}
}
