package sim_test

import (
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/sim"
)

// docs/engine.md, "Observations and effects": the engine stamps every belief a node reports with
// true time and the node's own monotonic and wall readings, tracks who acts
// as leader (Leaders, Leading), and a crash of a leader is reported as a
// step-down with Detail "crash".
func TestObservationsStampedAndTracked(t *testing.T) {
	s := sim.New(sim.Config{})
	rec := &sim.Recorder{}
	s.AddSink(rec)
	var leadersAt []string
	snap := func() {
		var b []byte
		for _, id := range s.Leaders() {
			b = append(b, byte('0'+id))
		}
		leadersAt = append(leadersAt, string(b))
	}
	mk := func(script map[int]func(p *probe)) *probe {
		p := newProbe(&probeLog{s: s})
		p.onStart = func(p *probe, _ []byte) {
			for _, tag := range slices.Sorted(maps.Keys(script)) {
				p.env.SetTimer(time.Duration(tag)*time.Millisecond, tag)
			}
		}
		p.onTimer = func(p *probe, _ sim.TimerID, tag int) {
			script[tag](p)
			snap()
		}
		return p
	}
	// n0 runs 1.5x fast with its wall clock 2 s ahead; n1 is exact.
	n0 := s.AddNode("n0", mk(map[int]func(p *probe){
		10: func(p *probe) { p.env.ActAsLeader(3, 30) },
		40: func(p *probe) { p.env.StopLeading("lost quorum") },
		41: func(p *probe) { p.env.StopLeading("again") }, // not leading: no record
		60: func(p *probe) { p.env.ActAsLeader(5, 50) },
	}))
	n1 := s.AddNode("n1", mk(map[int]func(p *probe){
		15: func(p *probe) { p.env.BelieveLeader(0, 3) },
		20: func(p *probe) { p.env.ActAsLeader(4, 40) },
		70: func(p *probe) { p.env.BelieveLeader(sim.None, 0) },
	}))
	s.SetRate(n0, sim.Rate(1.5))
	s.StepWall(n0, 2*time.Second)
	var leadingAt35 [2]bool
	s.At(ms(35), func() {
		leadingAt35[0], _, _ = s.Leading(n0)
		leadingAt35[1], _, _ = s.Leading(n1)
	})
	s.At(ms(60), func() { s.Crash(n1); snap() })
	require.Equal(t, sim.OutcomeQuiescent, s.Run())

	// n0's timers fire at tag/1.5 ms true time.
	tr := func(localMs int) sim.Time { return sim.Time((int64(localMs)*int64(time.Millisecond)*2 + 2) / 3) }
	w0 := func(localMs int) int64 {
		return sim.DefaultWallStart.Add(2*time.Second + time.Duration(localMs)*time.Millisecond).UnixNano()
	}
	w1 := func(trueMs int64) int64 {
		return sim.DefaultWallStart.Add(time.Duration(trueMs) * time.Millisecond).UnixNano()
	}
	type obs struct {
		Type   sim.RecordType
		At     sim.Time
		Node   sim.NodeID
		Peer   sim.NodeID
		Epoch  int64
		Token  int64
		Mono   time.Duration
		Wall   int64
		Detail string
	}
	var got []obs
	for _, r := range rec.Records {
		switch r.Type {
		case sim.RecLead, sim.RecStepDown, sim.RecBelieve:
			got = append(got, obs{r.Type, r.At, r.Node, r.Peer, r.Epoch, r.Token, r.Mono, r.Wall, r.Detail})
		}
	}
	require.Equal(t, []obs{
		{sim.RecLead, tr(10), n0, sim.None, 3, 30, 10 * time.Millisecond, w0(10), ""},
		{sim.RecBelieve, ms(15), n1, n0, 3, 0, 15 * time.Millisecond, w1(15), ""},
		{sim.RecLead, ms(20), n1, sim.None, 4, 40, 20 * time.Millisecond, w1(20), ""},
		{sim.RecStepDown, tr(40), n0, sim.None, 3, 30, 40 * time.Millisecond, w0(40), "lost quorum"},
		{sim.RecLead, tr(60), n0, sim.None, 5, 50, 60 * time.Millisecond, w0(60), ""},
		{sim.RecStepDown, ms(60), n1, sim.None, 4, 40, 60 * time.Millisecond, w1(60), "crash"},
	}, got)
	// n1's BelieveLeader at 70 ms never ran: it crashed at 60 ms.
	require.Equal(t, []string{"0", "0", "01", "1", "1", "01", "0"}, leadersAt)
	require.Equal(t, [2]bool{false, true}, leadingAt35, "n0 stepped down at 26.7 ms")
	leading, epoch, token := s.Leading(n0)
	require.True(t, leading)
	require.Equal(t, [2]int64{5, 50}, [2]int64{epoch, token})
	leading, _, _ = s.Leading(n1)
	require.False(t, leading)
	require.Equal(t, []sim.NodeID{n0}, s.Leaders())

	// The crash record follows the step-down at the same instant.
	crashes := records(rec, sim.RecCrash, n1)
	require.Len(t, crashes, 1)
	require.Equal(t, ms(60), crashes[0].At)
}

// Effects are recorded with their fields and the node's clock readings.
func TestObservationsEffect(t *testing.T) {
	s := sim.New(sim.Config{})
	rec := &sim.Recorder{}
	s.AddSink(rec)
	p := newProbe(&probeLog{s: s})
	p.onStart = func(p *probe, _ []byte) { p.env.SetTimer(5*time.Millisecond, 0) }
	p.onTimer = func(p *probe, _ sim.TimerID, _ int) {
		p.env.Effect(sim.Effect{Name: "job.start", Detail: "report", A: 1, B: 2, C: 3})
	}
	id := s.AddNode("n1", p)
	s.Run()
	e := records(rec, sim.RecEffect, id)
	require.Len(t, e, 1)
	require.Equal(t, sim.Record{At: ms(5), Type: sim.RecEffect, Node: id, Peer: sim.None, A: 1, B: 2, C: 3,
		Mono: 5 * time.Millisecond, Wall: sim.DefaultWallStart.Add(5 * time.Millisecond).UnixNano(),
		Name: "job.start", Detail: "report"}, e[0])
}
