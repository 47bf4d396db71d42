package scenario

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sweepSets are -set overrides at the edges of the grammar.
var sweepSets = []string{
	"cluster.nodes=1", "cluster.nodes=2", "cluster.nodes=64",
	"network.latency=0", "network.latency=0ms..0ms", "network.latency={dist: exponential, min: 0ms, mean: 0ms}",
	"network.latency={dist: normal, mean: 5ms, stddev: 0ms}", "network.latency={dist: exponential, mean: 5ms}",
	"network.drop=1", "network.duplicate=1", "network.fifo=true",
	"network.links=[{from: n1, to: n1, latency: 0ms}]", "network.links=[{from: n1, to: n2, both: true, drop: 1}]",
	"faults[0].at=0", "faults[0].for=0s", "faults[0].at=1h", "faults[0].for=100000h",
	"faults[+]={at: 1s, partition: majority_minority}", "faults[+]={at: 1s, partition: bridge}",
	"faults[+]={at: 1s, partition: one_way, target: leader}", "faults[+]={at: 1s, partition: {shape: groups, groups: [[n1], [store]]}}",
	"faults[+]={at: 1s, partition: {shape: groups, groups: [[n1], [resource]]}}",
	"faults[+]={at: 1s, partition: {shape: groups, groups: [[n1], [n1]]}}",
	"faults[+]={at: 1s, partition: {shape: majority_minority, services: minority}}",
	"faults[+]={at: 1s, clock: {target: all, offset: -1h}}", "faults[+]={at: 1s, clock: {node: n1, rate: 0.001}, for: 1s}",
	"faults[+]={at: 1s, clock: {node: n1, step: -100000h}}",
	"faults[+]={at: 1s, link: {latency: 0ms}}", "faults[+]={at: 1s, link: {from: store, to: resource, drop: 1}}",
	"faults[+]={at: 1s, disk: {target: all, fsync: 0ms}}", "faults[+]={at: 1s, disk: {target: store, fsync: 1s}}",
	"faults[+]={random: {kinds: [partition], every: 1ns}}", "faults[+]={random: {kinds: [store_failover], every: 1s}}",
	"faults[+]={random: {kinds: [pause], every: 1s, targets: [resource]}}", "faults[+]={random: {kinds: [pause], every: 1s, targets: [store, n1]}}",
	"faults[+]={random: {kinds: [partition, pause, crash, restart, clock, link, disk], swarm: true, every: 1s, start: 0s, until: 5s}}",
	"faults[+]={random: {kinds: [pause], weights: [0], every: 1s}}",
	"faults[+]={after: {event: renew}, pause: event_node}", "faults[+]={after: {event: elected, node: n1}, crash: leader, for: 1s}",
	"faults[+]={after: {event: job_started, node: store}, pause: event_node}", "faults[+]={after: {event: job_finished}, pause: event_node}",
	"faults[+]={at: 1s, restart: all, wipe_disk: true}", "faults[+]={at: 1s, crash: [n1, store], for: 1s}",
	"faults[+]={at: 1s, pause: {target: {kind: random, count: 64}}}", "faults[+]={at: 1s, partition: {shape: isolate, target: {kind: random, count: 64}}}",
	"faults[+]={at: 1s, resign: all, for: 1s}", "faults[+]={at: 1s, resign: {target: leader, grace: 0s}}",
	"faults[+]={at: 1s, store: {unavailable: true, lose_last_writes: 1000000}}", "faults[+]={at: 1s, store: failover}",
	"faults[+]={at: 1s, heal: true}", "faults[+]={at: 1s, heal: }",
	"algorithm={name: raft}", "algorithm={name: etcdraft}", "algorithm={name: bully}", "algorithm={name: ring}", "algorithm={name: lease}",
	"algorithm={name: lease, flavor: ttl}", "algorithm={name: lease, flavor: walltime}",
	"algorithm={name: ring, arrangement: random}", "algorithm={name: ring, order: [n1, n1, n2]}", "algorithm={name: ring, all_initiate: false}",
	"algorithm={name: ring, initiators: [n9]}", "algorithm={name: ring, variant: collect_all}", "algorithm={name: lease, flavor: walltime, lock_at_most_for: 1ms}",
	"algorithm={name: lease, flavor: ttl, ttl: 1ns}", "algorithm={name: lease, flavor: ttl, ttl: 10ms, clock_drift_margin: 10ms}",
	"algorithm={name: etcdraft, election_tick: 1}", "algorithm={name: etcdraft, tick: 1ns}", "algorithm={name: raft, last_log_term: [-1, 0, 0, 0, 0]}",
	"algorithm={name: raft, election_timeout: 1ns, heartbeat: 0s}", "algorithm={name: bully, heartbeat: 0s}", "algorithm={name: bully, priorities: [1, 2, 3, 4, 5]}",
	"algorithm={name: lease, jitter_factor: 0, retry_period: 1ns}", "algorithm={name: lease, shutdown_at: 1s}",
	"cron={jobs: [{name: a, schedule: \"@every 1ns\"}]}", "cron={jobs: [{name: a, schedule: \"@every 1ms\", duration: 0s..1h}]}",
	"cron={jobs: [{name: a, schedule: \"* * * * *\", writes: 1000}]}", "cron={mode: shedlock, jobs: [{name: a, schedule: \"@every 1s\"}]}",
	"cron={jobs: [{name: a, schedule: \"0 0 30 2 *\"}]}", "cron={jobs: [{name: a, schedule: \"@every 1s\"}], policy: claim, misfire: {policy: skip, threshold: 1ns, lookback: 1ns}, poll_interval: 1ms}",
	"cluster.clocks=[{node: n1, offset: -100000h}]", "cluster.clocks=[{node: n1, rate: 1000}, {node: n1, rate: 0.001}]",
	"cluster.clocks=[{node: n1, mono_rate: 0.001, wall_rate: 1000}]", "cluster.fsync=1h",
	"start=0001-01-01T00:00:00Z", "start=9999-12-31T23:59:59Z", "start=1677-09-21T00:12:43Z", "start=2262-04-11T23:47:16Z",
	"duration=1ns", "duration=2562047h", "max_events=1000", "settle.for=0s", "settle={for: 0s, leader_within: 0s}",
	"seed=18446744073709551615",
}

// TestOverridesBuild splices each override of sweepSets (edge values,
// every fault kind and target, every algorithm) into every shipped scenario
// and requires that whatever the loader accepts also builds: an accepted
// scenario that faults.New or an algorithm rejects is a check the loader
// is missing (the fuzzer rarely writes YAML this well-formed). The
// overrides themselves are judged too: at least some must be accepted and
// some rejected.
func TestOverridesBuild(t *testing.T) {
	accepted, rejected := 0, 0
	for _, f := range shippedScenarios(t) {
		for _, set := range sweepSets {
			sc, err := LoadWith(f, []string{set})
			if err != nil {
				var es Errors
				require.ErrorAs(t, err, &es, "%s -set %s", f, set)
				rejected++
				continue
			}
			accepted++
			_, err = sc.Build(RunOptions{Seed: 1})
			assert.NoError(t, err, "%s -set %s: accepted but does not build", f, set)
		}
	}
	assert.Greater(t, accepted, 500)
	assert.Greater(t, rejected, 300)
}
