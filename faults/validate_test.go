package faults_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/faults"
	"github.com/electsim/electsim/sim"
)

// Bad faults are rejected with a message naming the field, so the scenario
// loader can point at the YAML line (docs/scenarios.md, "Errors": every
// error names file, line, column and field).
func TestFaultValidate(t *testing.T) {
	neg, bad := faults.Dur(-time.Second), faults.DurRange{Min: 2 * time.Second, Max: time.Second}
	rate0, drop2 := faults.Float(0), faults.Float(2)
	lose := faults.IntRange{Min: 3, Max: 1}
	leader := faults.Leader()
	cases := []struct {
		f    faults.Fault
		want string
	}{
		{faults.Fault{}, "needs one of partition, heal, pause, crash, restart, clock, link, disk, store, resign"},
		{faults.Fault{Pause: &faults.Pause{Target: leader}, Crash: &faults.Crash{Target: leader}}, "has pause and crash: exactly one kind per fault"},
		{faults.Fault{At: bad, Pause: &faults.Pause{Target: leader}}, "at: min 2s > max 1s"},
		{faults.Fault{For: &neg, Pause: &faults.Pause{Target: leader}}, "for: negative duration -1s"},
		{faults.Fault{For: &bad, Heal: &faults.Heal{}}, "for: min 2s > max 1s"},
		{faults.Fault{For: durp(time.Second), Restart: &faults.Restart{Target: leader}}, "for: a restart fault is instantaneous and cannot last"},
		{faults.Fault{For: durp(time.Second), Clock: &faults.Clock{Target: leader, Step: durp(time.Second)}}, "for: a clock fault is instantaneous and cannot last"},
		{faults.Fault{Pause: &faults.Pause{}}, "pause.target.kind: missing (one of [leader lease_holder candidate followers random random_minority node all store resource event_node service workers busy_worker queue exec_store])"},
		{faults.Fault{Pause: &faults.Pause{Target: faults.Of("leadr")}}, `pause.target.kind: unknown "leadr" (one of [leader lease_holder candidate followers random random_minority node all store resource event_node service workers busy_worker queue exec_store])`},
		{faults.Fault{Pause: &faults.Pause{Target: faults.Of(faults.TargetNode)}}, `pause.target.nodes: kind "node" needs at least one node`},
		{faults.Fault{Pause: &faults.Pause{Target: faults.Target{Kind: faults.TargetLeader, Count: 2}}}, `pause.target.count: only for kind "random", not "leader"`},
		{faults.Fault{Pause: &faults.Pause{Target: faults.Of(faults.TargetEventNode)}}, `pause: target "event_node" needs after (a trigger)`},
		{faults.Fault{After: &faults.Trigger{Event: "renewed"}, Pause: &faults.Pause{Target: leader}},
			`after.event: unknown "renewed" (one of [elected stepped_down renew acquired expired job_started job_finished])`},
		{faults.Fault{After: &faults.Trigger{Event: faults.EventRenew, Node: faults.Random()}, Pause: &faults.Pause{Target: leader}},
			`after.node: kind "random" cannot name whose event counts`},
		{faults.Fault{After: &faults.Trigger{Event: faults.EventRenew, Delay: neg}, Pause: &faults.Pause{Target: leader}}, "after.delay: negative duration -1s"},
		{faults.Fault{Partition: &faults.Partition{}}, "partition.shape: missing (one of [groups isolate majority_minority bridge one_way])"},
		{faults.Fault{Partition: &faults.Partition{Shape: faults.ShapeIsolate}}, `partition.target: required for shape "isolate"`},
		{faults.Fault{Partition: &faults.Partition{Shape: faults.ShapeGroups, Groups: [][]faults.Target{{leader}}}}, "partition.groups: need at least 2, got 1"},
		{faults.Fault{Partition: &faults.Partition{Shape: faults.ShapeGroups, Groups: [][]faults.Target{{leader}, {}}}}, "partition.groups[1]: empty"},
		{faults.Fault{Partition: &faults.Partition{Shape: faults.ShapeGroups, Groups: [][]faults.Target{{leader}, {faults.Of("x")}}}},
			`partition.groups[1][0].kind: unknown "x" (one of [leader lease_holder candidate followers random random_minority node all store resource event_node service workers busy_worker queue exec_store])`},
		{faults.Fault{Partition: &faults.Partition{Shape: faults.ShapeIsolate, Target: &leader, Services: faults.ServicesMajority}}, `partition.services: only for shape "majority_minority"`},
		{faults.Fault{Partition: &faults.Partition{Shape: faults.ShapeBridge, To: &leader}}, `partition.to: only for shape "one_way"`},
		{faults.Fault{Clock: &faults.Clock{Target: leader}}, "clock: needs at least one of offset, step, rate, mono_rate, wall_rate"},
		{faults.Fault{Clock: &faults.Clock{Target: leader, Rate: &rate0}}, "clock.rate: 0 out of range (0, 1000]"},
		{faults.Fault{Clock: &faults.Clock{Target: leader, Rate: &drop2, WallRate: &drop2}}, "clock.rate: sets both clocks; not with mono_rate or wall_rate"},
		{faults.Fault{Link: &faults.Link{}}, "link: needs at least one of latency, drop, duplicate"},
		{faults.Fault{Link: &faults.Link{Drop: &drop2}}, "link.drop: 2 out of range [0, 1]"},
		{faults.Fault{Link: &faults.Link{Latency: &sim.Dist{Kind: sim.DistUniform, Min: 5, Max: 1}}}, "link.latency: uniform latency needs 0 <= min <= max, got 5ns..1ns"},
		{faults.Fault{Disk: &faults.Disk{Target: leader, Fsync: sim.Constant(-1)}}, "disk.fsync: constant latency -1ns is negative"},
		{faults.Fault{Store: &faults.Store{}}, "store: needs unavailable or lose_last_writes"},
		{faults.Fault{Store: &faults.Store{LoseLastWrites: &lose}}, "store.lose_last_writes: min 3 > max 1"},
	}
	for _, c := range cases {
		err := c.f.Validate()
		if assert.Error(t, err, c.want) {
			assert.Equal(t, c.want, err.Error())
		}
	}
	ok := faults.Fault{At: faults.Between(time.Second, 2*time.Second), For: durp(time.Second),
		After: &faults.Trigger{Event: faults.EventRenew, Node: faults.LeaseHolder(), Delay: faults.Dur(100 * time.Millisecond)},
		Pause: &faults.Pause{Target: faults.Of(faults.TargetEventNode)}}
	assert.NoError(t, ok.Validate())
	assert.Equal(t, "pause", ok.Kind())
}

// New checks faults against the cluster and the environment.
func TestNewRejects(t *testing.T) {
	h := newHarness(t, opts{seed: 1}, nil, nil)
	env := h.env()
	pause := func(tg faults.Target) []faults.Fault { return []faults.Fault{{Pause: &faults.Pause{Target: tg}}} }
	cases := []struct {
		env  faults.Environment
		fs   []faults.Fault
		ns   []faults.Nemesis
		want string
	}{
		{faults.Environment{Store: sim.None, Resource: sim.None}, nil, nil, "env.Candidates: empty"},
		{faults.Environment{Candidates: []sim.NodeID{0, 1}}, nil, nil, "env.Store: node n0 is a candidate; use sim.None when there is none"},
		{faults.Environment{Candidates: []sim.NodeID{0, 5}, Store: sim.None, Resource: sim.None}, nil, nil, "env.Candidates[1]: node 5 does not exist (2 nodes)"},
		{env, pause(faults.Nodes(7)), nil, "faults[0]: target node(7): node 7 does not exist (2 nodes)"},
		{env, pause(faults.Of(faults.TargetStore)), nil, "faults[0]: target store: no lease store in this scenario"},
		{env, pause(faults.Of(faults.TargetResource)), nil, "faults[0]: target resource: no fenced resource in this scenario"},
		{env, []faults.Fault{{Store: &faults.Store{Unavailable: true}}}, nil, "faults[0]: store: no lease store in this scenario"},
		{env, []faults.Fault{{After: &faults.Trigger{Event: faults.EventRenew}, Pause: &faults.Pause{Target: faults.Leader()}}}, nil,
			`faults[0]: after.event: "renew" needs a lease store`},
		{env, nil, []faults.Nemesis{{Kinds: []string{faults.KindPause}, Every: faults.Dur(time.Second)}, {}}, "nemeses[1]: kinds: empty (some of [partition pause crash restart clock link disk store_unavailable store_failover])"},
		{env, nil, []faults.Nemesis{{Kinds: []string{"pause", "nap"}, Every: faults.Dur(time.Second)}}, `nemeses[0]: kinds[1]: unknown "nap" (one of [partition pause crash restart clock link disk store_unavailable store_failover])`},
		{env, nil, []faults.Nemesis{{Kinds: []string{"pause", "pause"}, Every: faults.Dur(time.Second)}}, `nemeses[0]: kinds[1]: "pause" listed twice`},
		{env, nil, []faults.Nemesis{{Kinds: []string{"pause"}}}, "nemeses[0]: every: must be positive, got 0s"},
		{env, nil, []faults.Nemesis{{Kinds: []string{"pause"}, Weights: []int{1, 2}, Every: faults.Dur(time.Second)}}, "nemeses[0]: weights: 2 for 1 kinds"},
		{env, nil, []faults.Nemesis{{Kinds: []string{"pause"}, Swarm: true, Weights: []int{1}, Every: faults.Dur(time.Second)}}, "nemeses[0]: weights: not with swarm (swarm draws them)"},
		{env, nil, []faults.Nemesis{{Kinds: []string{"store_failover"}, Every: faults.Dur(time.Second)}}, `nemeses[0]: kinds: "store_failover" but no lease store in this scenario`},
		{env, nil, []faults.Nemesis{{Kinds: []string{"partition"}, Shapes: []faults.PartitionShape{faults.ShapeGroups}, Every: faults.Dur(time.Second)}},
			`nemeses[0]: shapes[0]: "groups" is not one of [isolate majority_minority bridge one_way]`},
		{env, nil, []faults.Nemesis{{Kinds: []string{"pause"}, Targets: []faults.Target{faults.Of(faults.TargetEventNode)}, Every: faults.Dur(time.Second)}},
			`nemeses[0]: targets[0]: kind "event_node" needs a trigger`},
	}
	for _, c := range cases {
		_, err := faults.New(h.s, c.env, c.fs, c.ns)
		if assert.Error(t, err, c.want) {
			assert.Equal(t, c.want, err.Error())
		}
	}
}

// Ranges are uniform and inclusive; a constant draws nothing from the stream
// (so turning one parameter into a range never shifts the others' draws).
func TestRangesDraw(t *testing.T) {
	r, ref := sim.NewRand(1, "faults"), sim.NewRand(1, "faults")
	assert.Equal(t, 5*time.Second, faults.Dur(5*time.Second).Draw(r))
	assert.Equal(t, 0.3, faults.Float(0.3).Draw(r))
	assert.Equal(t, 2, faults.Int(2).Draw(r))
	require.Equal(t, ref.Uint64(), r.Uint64(), "constants consumed no randomness")

	seen := map[time.Duration]int{}
	ints := map[int]int{}
	lo, hi := 1.0, 0.0
	for i := 0; i < 3000; i++ {
		seen[faults.Between(1, 3).Draw(r)]++
		ints[faults.IntRange{Min: -1, Max: 1}.Draw(r)]++
		f := faults.FloatRange{Min: 0.25, Max: 0.75}.Draw(r)
		lo, hi = min(lo, f), max(hi, f)
	}
	assert.Len(t, seen, 3)
	for d, n := range seen {
		assert.True(t, d >= 1 && d <= 3)
		assert.InDelta(t, 1000, n, 100)
	}
	assert.Len(t, ints, 3)
	assert.GreaterOrEqual(t, lo, 0.25)
	assert.LessOrEqual(t, hi, 0.75)
	assert.InDelta(t, 0.25, lo, 0.01)
	assert.InDelta(t, 0.75, hi, 0.01)
	assert.Equal(t, "5s", faults.Dur(5*time.Second).String())
	assert.Equal(t, "25s..26s", faults.Between(25*time.Second, 26*time.Second).String())
	assert.Equal(t, "0.5..2", faults.FloatRange{Min: 0.5, Max: 2}.String())
	assert.Equal(t, "1..3", faults.IntRange{Min: 1, Max: 3}.String())
}

// MapTargets rewrites every target of every kind (and of the trigger) and
// leaves the original untouched.
func TestMapTargets(t *testing.T) {
	two := faults.Nodes(2)
	orig := []faults.Fault{
		{Partition: &faults.Partition{Shape: faults.ShapeGroups, Groups: [][]faults.Target{{faults.Nodes(1)}, {faults.Nodes(2)}}}},
		{Partition: &faults.Partition{Shape: faults.ShapeOneWay, Target: &two, To: &two}},
		{Pause: &faults.Pause{Target: two}, After: &faults.Trigger{Event: faults.EventElected, Node: two}},
		{Crash: &faults.Crash{Target: two}}, {Restart: &faults.Restart{Target: two}}, {Resign: &faults.Resign{Target: two}},
		{Clock: &faults.Clock{Target: two}}, {Disk: &faults.Disk{Target: two}}, {Link: &faults.Link{From: &two, To: &two}},
	}
	for _, f := range orig {
		n := 0
		got := f.MapTargets(func(faults.Target) faults.Target { n++; return faults.Nodes(9) })
		assert.NotZero(t, n, f.Kind())
		again := 0
		got.MapTargets(func(x faults.Target) faults.Target {
			again++
			assert.Equal(t, faults.Nodes(9), x, f.Kind())
			return x
		})
		assert.Equal(t, n, again)
		f.MapTargets(func(x faults.Target) faults.Target {
			assert.NotEqual(t, faults.Nodes(9), x, "the original is untouched: %s", f.Kind())
			return x
		})
	}
}
