package sim_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/sim"
)

// Every fault primitive states what it did as a typed fact (docs/checkers.md,
// "Contracts": the checker reads fault classes from these, never from the
// records' text): clock rates off exact, wall-clock steps, disk latency,
// restarts without the disk, and link changes told apart by latency and
// loss.
func TestFaultPrimitivesCarryTypedFacts(t *testing.T) {
	s := sim.New(sim.Config{})
	rec := &sim.Recorder{}
	s.AddSink(rec)
	a := s.AddNode("a", nopNode{})
	b := s.AddNode("b", nopNode{})
	fact := func(do func()) sim.Fact {
		t.Helper()
		n := len(rec.Records)
		do()
		require.Len(t, rec.Records, n+1)
		return rec.Records[n].Fact
	}
	base := s.Link(a, b)
	slow := sim.LinkConfig{Latency: sim.Constant(50 * time.Millisecond)}
	lossy := base
	lossy.Drop = 0.1
	both := slow
	both.Duplicate = 0.2

	assert.Equal(t, sim.FactClockRate, fact(func() { s.SetRate(a, sim.Rate(1.01)) }))
	assert.Equal(t, sim.FactNone, fact(func() { s.SetRate(a, sim.RateOne) }), "back to exact: no fault")
	assert.Equal(t, sim.FactClockRate, fact(func() { s.SetMonoRate(a, sim.Rate(0.99)) }))
	assert.Equal(t, sim.FactClockRate, fact(func() { s.SetWallRate(a, sim.Rate(1.5)) }))
	assert.Equal(t, sim.FactClockStep, fact(func() { s.StepWall(a, -time.Second) }))
	assert.Equal(t, sim.FactDiskLatency, fact(func() { s.SetFsync(a, sim.Constant(time.Millisecond)) }))
	assert.Equal(t, sim.FactLinkChanged, fact(func() { s.SetLink(a, b, slow) }))
	assert.Equal(t, sim.FactNone, fact(func() { s.SetLink(a, b, slow) }), "no change")
	assert.Equal(t, sim.FactLinkLossy, fact(func() { s.SetLink(a, b, both) }), "a→b was slow already: only the loss is new")
	assert.Equal(t, sim.FactLinkLossyChanged, fact(func() { s.SetLink(b, a, both) }), "b→a was not slow")
	assert.Equal(t, sim.FactLinkChanged, fact(func() { s.SetLink(b, a, base) }))
	assert.Equal(t, sim.FactLinkLossyChanged, fact(func() { s.SetAllLinks(lossy) }), "a→b was slow")
	assert.Equal(t, sim.FactLinkLossy, fact(func() { s.SetAllLinks(lossy) }))
	assert.Equal(t, sim.FactNone, fact(func() { s.SetAllLinks(base) }), "healed")

	s.Crash(b)
	s.Restart(b, false)
	s.Crash(a)
	s.Restart(a, true)
	var starts []sim.Fact
	for _, r := range rec.Records {
		if r.Type == sim.RecStart && r.A == 1 {
			starts = append(starts, r.Fact)
		}
	}
	assert.Equal(t, []sim.Fact{sim.FactDiskLost, sim.FactNone}, starts, "a restart without its disk, then one with it")
}

// A crashed service stopped answering: its RecCrash says so
// (FactServiceDown, classes crash and service_down), a candidate's does not.
func TestServiceCrashIsServiceDown(t *testing.T) {
	s := sim.New(sim.Config{})
	rec := &sim.Recorder{}
	s.AddSink(rec)
	a := s.AddNode("a", nopNode{})
	svc := s.AddNode("store", nopNode{}, sim.Service())
	s.Crash(a)
	s.Crash(svc)
	var facts []sim.Fact
	for _, r := range rec.Records {
		if r.Type == sim.RecCrash {
			facts = append(facts, r.Fact)
		}
	}
	assert.Equal(t, []sim.Fact{sim.FactNone, sim.FactServiceDown}, facts)
}

type nopNode struct{}

func (nopNode) Start(sim.Env, []byte)    {}
func (nopNode) OnMessage(sim.Message)    {}
func (nopNode) OnTimer(sim.TimerID, int) {}
