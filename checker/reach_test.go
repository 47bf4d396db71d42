package checker

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/sim"
)

type idle struct{}

func (idle) Start(sim.Env, []byte)    {}
func (idle) OnMessage(sim.Message)    {}
func (idle) OnTimer(sim.TimerID, int) {}

// The checker rebuilds reachability from the engine's network fault records
// (sim/control.go formats them); after every one of 300 random faults its
// matrix must equal the engine's.
func TestReachFollowsEngine(t *testing.T) {
	const n = 6
	s := sim.New(sim.Config{Seed: 3})
	rec := &sim.Recorder{}
	s.AddSink(rec)
	var all []sim.NodeID
	for i := 0; i < n; i++ {
		all = append(all, s.AddNode(fmt.Sprintf("n%d", i+1), idle{}))
	}
	r := newReach(n, NamesOf(s))
	rnd := s.Stream("faults")
	pick := func() []sim.NodeID {
		var g []sim.NodeID
		for _, id := range all {
			if rnd.Intn(2) == 0 {
				g = append(g, id)
			}
		}
		return g
	}
	seen := 0
	for step := 0; step < 300; step++ {
		a, b := sim.NodeID(rnd.Intn(n)), sim.NodeID(rnd.Intn(n))
		switch rnd.Intn(8) {
		case 0:
			s.Cut(a, b)
		case 1:
			s.Connect(a, b)
		case 2:
			l := pick()
			var rest []sim.NodeID
			for _, id := range all {
				if !involved(l, id) {
					rest = append(rest, id)
				}
			}
			s.Partition(l, rest)
		case 3:
			s.Isolate(a)
		case 4:
			s.OneWay(pick(), pick())
		case 5:
			s.Bridge(pick(), pick(), a)
		case 6:
			s.SplitMinority(all, rnd)
		case 7:
			s.Heal()
		}
		for ; seen < len(rec.Records); seen++ {
			if isNetFault(&rec.Records[seen]) {
				r.apply(&rec.Records[seen])
			}
		}
		for x := sim.NodeID(0); x < n; x++ {
			for y := sim.NodeID(0); y < n; y++ {
				require.Equal(t, s.Reachable(x, y), r.ok(x, y), "step %d %s: %v -> %v", step, rec.Records[seen-1].Detail, x, y)
			}
		}
	}
}
