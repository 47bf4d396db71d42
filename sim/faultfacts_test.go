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
	assert.Equal(t, sim.FactClockExact, fact(func() { s.SetRate(a, sim.RateOne) }), "back to exact: the rate fault's end")
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

// Once the run has started, a fault primitive that brings a link, a disk
// or a clock back to what it was configured with says so (FactLinksReset,
// FactDiskRestored, FactClockExact): the end of the fault, from which the
// checker knows how long it lasted (docs/checkers.md, "Excuses"). Before
// the start the same calls are configuration.
func TestFaultEndsCarryTypedFacts(t *testing.T) {
	s := sim.New(sim.Config{})
	rec := &sim.Recorder{}
	s.AddSink(rec)
	a := s.AddNode("a", nopNode{})
	b := s.AddNode("b", nopNode{})
	c := s.AddNode("c", nopNode{})
	configured := sim.LinkConfig{Latency: sim.Constant(2 * time.Millisecond)}
	s.SetAllLinks(configured)
	s.SetLink(a, c, sim.LinkConfig{Latency: sim.Constant(7 * time.Millisecond)}) // a per-link override: configuration
	s.SetFsync(a, sim.Constant(3*time.Millisecond))
	s.RunFor(time.Millisecond)
	last := func(do func()) *sim.Record {
		t.Helper()
		n := len(rec.Records)
		do()
		require.Len(t, rec.Records, n+1)
		return &rec.Records[n]
	}
	slow := sim.LinkConfig{Latency: sim.Constant(time.Second)}
	r := last(func() { s.SetLink(a, b, slow) })
	assert.Equal(t, sim.FactLinkChanged, r.Fact)
	assert.Equal(t, []sim.Link{{From: a, To: b}}, r.Links, "a link change names its link")
	r = last(func() { s.SetLink(a, b, configured) })
	assert.Equal(t, sim.FactLinksReset, r.Fact)
	assert.Equal(t, []sim.Link{{From: a, To: b}}, r.Links)
	assert.Equal(t, sim.FactLinkChanged, last(func() { s.SetLink(a, c, configured) }).Fact, "a→c started at 7ms: 2ms is a change")
	assert.Equal(t, sim.FactLinksReset, last(func() { s.SetLink(a, c, sim.LinkConfig{Latency: sim.Constant(7 * time.Millisecond)}) }).Fact)

	assert.Equal(t, sim.FactLinkChanged, last(func() { s.SetAllLinks(slow) }).Fact)
	assert.Equal(t, sim.FactLinkChanged, last(func() { s.SetAllLinks(configured) }).Fact, "a→c started elsewhere: not every link is back")
	assert.Equal(t, sim.FactLinksReset, last(func() { s.SetLink(a, c, sim.LinkConfig{Latency: sim.Constant(7 * time.Millisecond)}) }).Fact, "now every link is back")

	assert.Equal(t, sim.FactDiskLatency, last(func() { s.SetFsync(a, sim.Constant(time.Second)) }).Fact)
	assert.Equal(t, sim.FactDiskRestored, last(func() { s.SetFsync(a, sim.Constant(3*time.Millisecond)) }).Fact)
	assert.Equal(t, sim.FactDiskLatency, last(func() { s.SetFsync(b, sim.Constant(time.Millisecond)) }).Fact, "b was configured with no latency")
}

// Links that all started alike come back with one record.
func TestAllLinksBackToTheirStartIsOneReset(t *testing.T) {
	s := sim.New(sim.Config{})
	rec := &sim.Recorder{}
	s.AddSink(rec)
	s.AddNode("a", nopNode{})
	s.AddNode("b", nopNode{})
	base := s.Link(0, 1)
	s.RunFor(time.Millisecond)
	lossy := base
	lossy.Drop = 0.5
	s.SetAllLinks(lossy)
	s.SetAllLinks(base)
	require.GreaterOrEqual(t, len(rec.Records), 2)
	assert.Equal(t, sim.FactLinkLossy, rec.Records[len(rec.Records)-2].Fact)
	assert.Equal(t, sim.FactLinksReset, rec.Records[len(rec.Records)-1].Fact)
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
