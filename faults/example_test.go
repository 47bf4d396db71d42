package faults_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/electsim/electsim/faults"
)

// The issue's YAML example, as the structs the scenario loader fills, runs
// on the real ttl lease flavour with 5 candidates, and replays identically
// from the same seed.
func TestIssueExample(t *testing.T) {
	example := func() []faults.Fault {
		isolate := faults.Leader()
		rate := faults.Float(1.3)
		return []faults.Fault{
			{At: faults.Dur(10 * time.Second), For: durp(10 * time.Second),
				Partition: &faults.Partition{Shape: faults.ShapeIsolate, Target: &isolate}},
			{At: faults.Between(25*time.Second, 26*time.Second), For: durp(8 * time.Second),
				Pause: &faults.Pause{Target: faults.Leader()}},
			{At: faults.Dur(30 * time.Second), Clock: &faults.Clock{Target: faults.Nodes(3), Offset: durp(2 * time.Second), Rate: &rate}},
			{After: &faults.Trigger{Event: faults.EventRenew, Node: faults.LeaseHolder(), Delay: faults.Dur(100 * time.Millisecond)},
				For: durp(16 * time.Second), Pause: &faults.Pause{Target: faults.LeaseHolder()}},
		}
	}
	nemesis := faults.Nemesis{Kinds: []string{faults.KindPartition, faults.KindPause, faults.KindCrash, faults.KindClock},
		Every: faults.Between(5*time.Second, 15*time.Second), For: faults.Between(time.Second, 8*time.Second)}
	run := func() ([]string, string) {
		h := leaseCluster(t, 11, 5)
		in := h.inject(example(), nemesis)
		in.Settle(at(120))
		h.s.RunUntil(at(180))
		return h.notes("fault."), h.s.TraceHashHex()
	}
	notes, hash := run()
	notes2, hash2 := run()
	assert.Equal(t, notes, notes2)
	assert.Equal(t, hash, hash2)
	// The explicit trigger fires on the first renewal; the stale (paused)
	// leader n4 is the one isolated at 10s; the nemesis keeps to its kinds.
	assert.Equal(t, []string{
		"3.345s fault.trigger faults[3]: renew of n4 at 3.345s, firing in 0.100s",
		"3.445s fault.pause faults[3]: pause n4 (lease_holder, token 1) for 16.000s",
		"10.000s fault.partition faults[0]: partition isolate n4 (leader, epoch 1) for 10.000s",
		"11.521s fault.clock nemesis[0]: clock n1 (random): offset +1.559s, rate 0.529078 for 3.445s",
		"14.967s fault.revert nemesis[0]: clock n1: offset -1.559s back, rates restored",
		"19.445s fault.revert faults[3]: resume n4",
		"20.000s fault.revert faults[0]: heal partition: 10 of 10 links restored",
		"23.724s fault.clock nemesis[0]: clock n0 (random): offset +4.996s, rate 1.96759 for 6.881s",
		"25.589s fault.pause faults[1]: pause n2 (leader, epoch 2) for 8.000s",
		"30.000s fault.clock faults[2]: clock n3: offset +2.000s, rate 1.3 until settle",
		"30.606s fault.revert nemesis[0]: clock n0: offset -4.996s back, rates restored",
		"32.000s fault.crash nemesis[0]: crash n2 (leader, epoch 2) for 4.280s",
		"33.589s fault.revert faults[1]: resume n2",
		"36.280s fault.revert nemesis[0]: restart n2, disk kept",
		"38.227s fault.pause nemesis[0]: pause n0 (leader, epoch 3) for 4.577s",
		"42.805s fault.revert nemesis[0]: resume n0",
		"51.222s fault.pause nemesis[0]: pause n0 (leader, epoch 3) for 6.973s",
		"58.196s fault.revert nemesis[0]: resume n0",
		"63.879s fault.clock nemesis[0]: clock n0 (leader, epoch 3): offset +1.994s, rate 0.961164 for 7.092s",
		"70.972s fault.revert nemesis[0]: clock n0: offset -1.994s back, rates restored",
		"73.106s fault.crash nemesis[0]: crash n0 (leader, epoch 3) for 5.724s",
		"78.830s fault.revert nemesis[0]: restart n0, disk kept",
		"87.101s fault.partition nemesis[0]: partition bridge {n1,n2} | {n3,n4} via n0 (random) for 6.265s",
		"93.367s fault.revert nemesis[0]: heal partition: 8 of 8 links restored",
		"98.949s fault.pause nemesis[0]: pause n0 (leader, epoch 4) for 1.409s",
		"100.358s fault.revert nemesis[0]: resume n0",
		"106.473s fault.crash nemesis[0]: crash n0 (leader, epoch 4) for 6.424s",
		"112.898s fault.revert nemesis[0]: restart n0, disk kept",
		"114.428s fault.skip nemesis[0]: crash skipped: no leader",
		"120.000s fault.settle settle: reverting 1 active faults",
		"120.000s fault.revert faults[2]: clock n3: offset -2.000s back, rates restored",
	}, notes)
}
