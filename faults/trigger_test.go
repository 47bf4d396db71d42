package faults_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/algorithms/lease"
	"github.com/electsim/electsim/faults"
	"github.com/electsim/electsim/sim"
)

// The trigger example, on the real ttl lease flavour: pause the
// lease holder 100ms after its first renewal at or after 10s, for 16s — the
// Redlock GC-pause scenario (Kleppmann, "How to do distributed locking").
func TestTriggerAfterRenewOfLeaseHolder(t *testing.T) {
	h := leaseCluster(t, 7, 3)
	in := h.inject([]faults.Fault{{At: faults.Dur(sec(10)),
		After: &faults.Trigger{Event: faults.EventRenew, Node: faults.LeaseHolder(), Delay: faults.Dur(100 * time.Millisecond)},
		For:   durp(16 * time.Second), Pause: &faults.Pause{Target: faults.LeaseHolder()}}})
	h.s.RunUntil(at(40))
	var renew *sim.Record
	for _, r := range h.records(sim.RecEffect, h.store) {
		if r.Name == lease.EffectRenewed && r.At >= at(10) {
			renew = &r
			break
		}
	}
	require.NotNil(t, renew)
	holder := sim.NodeID(renew.A)
	p := h.records(sim.RecPause, sim.None)
	require.Len(t, p, 1, "a trigger fires once")
	assert.Equal(t, holder, p[0].Node)
	assert.Equal(t, renew.At.Add(100*time.Millisecond), p[0].At)
	res := h.records(sim.RecResume, sim.None)
	require.Len(t, res, 1)
	assert.Equal(t, p[0].At.Add(16*time.Second), res[0].At)
	notes := h.notes("fault.")
	require.Len(t, notes, 3)
	assert.Equal(t, fmt.Sprintf("%v fault.trigger faults[0]: renew of n%d at %v, firing in 0.100s", renew.At, holder, renew.At), notes[0])
	assert.Regexp(t, fmt.Sprintf(`^%s fault.pause faults\[0\]: pause n%d \(lease_holder, token \d+\) for 16.000s$`,
		p[0].At, holder), notes[1])
	ex := in.Applied()[0].Explicit()
	assert.Nil(t, ex.After)
	assert.Equal(t, faults.Dur(p[0].At.Duration()), ex.At)
	assert.Equal(t, faults.Nodes(holder), ex.Pause.Target)
	assert.Equal(t, faults.Dur(16*time.Second), *ex.For)
}

// A trigger is armed at At, fires once, and event_node is the node whose
// event fired it. Leaders: n1 at 1s (before arming), n2 at 3s, n0 at 5s.
func TestTriggerElectedEventNode(t *testing.T) {
	h := newHarness(t, opts{seed: 1}, []act{lead(sec(5), 3)}, []act{lead(sec(1), 1), stop(sec(2))}, []act{lead(sec(3), 2), stop(sec(4.5))})
	h.inject([]faults.Fault{
		{At: faults.Dur(sec(2.5)), After: &faults.Trigger{Event: faults.EventElected, Delay: faults.Dur(500 * time.Millisecond)},
			For: durp(time.Second), Crash: &faults.Crash{Target: faults.Of(faults.TargetEventNode)}},
		{After: &faults.Trigger{Event: faults.EventSteppedDown, Node: faults.Nodes(2)},
			Clock: &faults.Clock{Target: faults.Of(faults.TargetEventNode), Step: durp(time.Second)}},
	})
	h.s.RunUntil(at(10))
	assert.Equal(t, []string{
		"3.000s fault.trigger faults[0]: elected of n2 at 3.000s, firing in 0.500s",
		// The crash makes n2 step down, which arms faults[1] before the
		// crash's own note (notes follow what they record).
		"3.500s fault.trigger faults[1]: stepped_down of n2 at 3.500s, firing in 0.000s",
		"3.500s fault.crash faults[0]: crash n2 (event_node) for 1.000s",
		"3.500s fault.clock faults[1]: clock n2 (event_node): step +1.000s",
		"4.500s fault.revert faults[0]: restart n2, disk kept",
	}, h.notes("fault."))
}

// job_started is the cron layer's run-started fact (sim.FactRunStarted, on
// its cron.run_started effect); the trigger's node picks whose. An effect
// with the same name but no fact is not a trigger event: triggers read
// typed facts, never names.
func TestTriggerJobStarted(t *testing.T) {
	run := func(at float64) act { return act{At: sec(at), Effect: "cron.run_started", Fact: sim.FactRunStarted} }
	h := newHarness(t, opts{seed: 1}, []act{run(2)}, []act{run(1)})
	h.inject([]faults.Fault{{After: &faults.Trigger{Event: faults.EventJobStarted, Node: faults.Nodes(0), Delay: faults.Dur(sec(0.25))},
		For: durp(time.Second), Pause: &faults.Pause{Target: faults.Of(faults.TargetEventNode)}}})
	h.s.RunUntil(at(5))
	assert.Equal(t, []string{
		"2.000s fault.trigger faults[0]: job_started of n0 at 2.000s, firing in 0.250s",
		"2.250s fault.pause faults[0]: pause n0 (event_node) for 1.000s",
		"3.250s fault.revert faults[0]: resume n0",
	}, h.notes("fault."))

	named := func(at float64) act { return act{At: sec(at), Effect: "cron.run_started"} } // the name alone
	h = newHarness(t, opts{seed: 1}, []act{named(2)}, []act{named(1)})
	h.inject([]faults.Fault{{After: &faults.Trigger{Event: faults.EventJobStarted, Delay: faults.Dur(sec(0.25))},
		For: durp(time.Second), Pause: &faults.Pause{Target: faults.Of(faults.TargetEventNode)}}})
	h.s.RunUntil(at(5))
	assert.Empty(t, h.notes("fault."), "an effect's name is for people; without the fact nothing fires")
}

// A state trigger waits for the protocol state it names (sim.FactProtocolState
// with A = its index in Environment.States), of a candidate; another state,
// or an effect that only carries the state's name, does not fire it.
func TestTriggerProtocolState(t *testing.T) {
	state := func(at float64, idx int64) act {
		return act{At: sec(at), Effect: "x.state", Fact: sim.FactProtocolState, A: idx}
	}
	h := newHarness(t, opts{seed: 1}, []act{state(1, 1), state(3, 0)}, []act{state(2, 1), {At: sec(2.5), Effect: "x.vote_granted"}})
	env := h.env()
	env.States = []string{"vote_granted", "term_bumped"}
	_, err := faults.New(h.s, env, []faults.Fault{{After: &faults.Trigger{State: "vote_granted"},
		For: durp(5 * time.Millisecond), Crash: &faults.Crash{Target: faults.Of(faults.TargetEventNode)}}}, nil)
	require.NoError(t, err)
	h.s.RunUntil(at(5))
	assert.Equal(t, []string{
		"3.000s fault.trigger faults[0]: vote_granted of n0 at 3.000s, firing in 0.000s",
		"3.000s fault.crash faults[0]: crash n0 (event_node) for 0.005s",
		"3.005s fault.revert faults[0]: restart n0, disk kept",
	}, h.notes("fault."))

	// A state the algorithm does not declare, and a state with an event,
	// are refused.
	h = newHarness(t, opts{seed: 1}, []act{state(1, 0)})
	env = h.env()
	env.States = []string{"vote_granted"}
	_, err = faults.New(h.s, env, []faults.Fault{{After: &faults.Trigger{State: "persisted"}, Pause: &faults.Pause{Target: faults.Of(faults.TargetEventNode)}}}, nil)
	assert.ErrorContains(t, err, `after.state: unknown "persisted"`)
	_, err = faults.New(h.s, env, []faults.Fault{{After: &faults.Trigger{State: "vote_granted", Event: faults.EventElected}, Pause: &faults.Pause{Target: faults.Of(faults.TargetEventNode)}}}, nil)
	assert.ErrorContains(t, err, "not with event")
}
