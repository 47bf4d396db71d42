package simrun

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/reports"
	"github.com/electsim/electsim/scenarios"
	"github.com/electsim/electsim/sim"
)

// A long featured run's diagram keeps the first reports.MaxSpaceTimeMessages
// messages, then unsubscribes; its Total still counts every delivery and
// drop of the run (checked against a recorder of the whole trace), and the
// trace is the same with it.
func TestSpaceTimeSinkUnsubscribesWhenFull(t *testing.T) {
	sc, err := scenarios.LoadWith(partition, []string{"duration=10m", "network.drop=0.05"})
	require.NoError(t, err)
	plain, err := sc.Run(scenarios.RunOptions{Seed: 2})
	require.NoError(t, err)
	rec := &sim.Recorder{}
	r, err := sc.Build(scenarios.RunOptions{Seed: 2, Recorder: rec})
	require.NoError(t, err)
	k := newSpaceTimeSink(r.Sim, false)
	r.Sim.AddSink(k)
	r.Execute(scenarios.RunOptions{Seed: 2})
	require.Equal(t, plain.Sim.TraceHashHex(), r.Sim.TraceHashHex())
	msgs := 0
	for i := range rec.Records {
		if rec.Records[i].Type == sim.RecDeliver || rec.Records[i].Type == sim.RecDrop {
			msgs++
		}
	}
	require.Greater(t, msgs, reports.MaxSpaceTimeMessages, "the run outgrows the diagram")
	st := k.diagram(&reports.Timeline{EndMs: 1})
	require.True(t, k.full)
	require.Len(t, st.Messages, reports.MaxSpaceTimeMessages)
	require.Equal(t, msgs, st.Total)
	require.True(t, st.Truncated())
}

// When the first fault comes after the diagram's first messages, the
// diagram is the lead-up to that fault (spaceTimeLead messages) and what
// followed, not the run's first minutes: its window holds the fault.
func TestSpaceTimeSinkMovesToALateFirstFault(t *testing.T) {
	sc, err := scenarios.LoadWith(partition, []string{"duration=10m", "faults[0].at=5m"})
	require.NoError(t, err)
	plain, err := sc.Run(scenarios.RunOptions{Seed: 3})
	require.NoError(t, err)
	rec := &sim.Recorder{}
	r, err := sc.Build(scenarios.RunOptions{Seed: 3, Recorder: rec})
	require.NoError(t, err)
	k := newSpaceTimeSink(r.Sim, true)
	r.Sim.AddSink(k)
	r.Execute(scenarios.RunOptions{Seed: 3})
	require.Equal(t, plain.Sim.TraceHashHex(), r.Sim.TraceHashHex(), "the sink only reads")

	var msgs []sim.Record
	faultMs := -1.0
	for _, x := range rec.Records {
		switch x.Type {
		case sim.RecDeliver, sim.RecDrop:
			msgs = append(msgs, x)
		case sim.RecFault, sim.RecCrash, sim.RecPause:
			if faultMs < 0 {
				faultMs = msT(x.At)
			}
		}
	}
	require.InDelta(t, 300_000, faultMs, 1000, "the partition isolates the leader at 5 min")
	st := k.diagram(&reports.Timeline{EndMs: 1})
	require.True(t, k.full)
	require.Len(t, st.Messages, reports.MaxSpaceTimeMessages)
	require.Equal(t, len(msgs), st.Total)
	// The kept messages are one contiguous stretch of the run's: the
	// spaceTimeLead before the fault and the rest after it.
	before := 0
	for _, x := range msgs {
		if msT(x.At) < faultMs {
			before++
		}
	}
	first := before - spaceTimeLead
	for i, m := range st.Messages {
		x := msgs[first+i]
		require.Equal(t, msT(x.At), m.AtMs, "message %d", i)
		require.Equal(t, int(x.Peer), m.From)
		require.Equal(t, int(x.Node), m.To)
	}
	require.Less(t, st.StartMs, faultMs)
	require.Greater(t, st.StartMs, faultMs-60_000, "the lead-up is seconds, not the run's start")
	require.Equal(t, st.Messages[len(st.Messages)-1].AtMs, st.EndMs)
	require.NotEmpty(t, st.Timers)
	for _, tm := range st.Timers {
		require.GreaterOrEqual(t, tm.AtMs, st.StartMs)
		require.LessOrEqual(t, tm.AtMs, st.EndMs)
	}
	require.True(t, st.Truncated())
}

// A run that has faults configured but none comes keeps its first
// messages, as a run without faults does: the ring of latest messages it
// kept meanwhile is bounded and dropped.
func TestSpaceTimeSinkKeepsTheStartWhenNoFaultComes(t *testing.T) {
	sc, err := scenarios.LoadWith(partition, []string{"duration=5m", "faults=[]"})
	require.NoError(t, err)
	r, err := sc.Build(scenarios.RunOptions{Seed: 4})
	require.NoError(t, err)
	k := newSpaceTimeSink(r.Sim, true)
	r.Sim.AddSink(k)
	r.Execute(scenarios.RunOptions{Seed: 4})
	require.False(t, k.faulted)
	require.LessOrEqual(t, len(k.ring), spaceTimeLead)
	require.LessOrEqual(t, len(k.seen)+len(k.seenOld), 2*spaceTimeLead, "the duplicate check forgets old deliveries")
	st := k.diagram(&reports.Timeline{EndMs: 300_000})
	require.Len(t, st.Messages, reports.MaxSpaceTimeMessages)
	require.Zero(t, st.StartMs)
	require.Less(t, st.EndMs, 300_000.0, "the diagram ends at its last kept message")
	require.Equal(t, st.Messages[len(st.Messages)-1].AtMs, st.EndMs)
	require.True(t, st.Truncated())
}

// A duplicate delivery is drawn as one: the sink tells a second copy of a
// send from the first while forgetting deliveries older than two of its
// generations, and finds exactly the duplicates the whole trace has.
func TestSpaceTimeSinkTellsDuplicates(t *testing.T) {
	sc, err := scenarios.LoadWith(partition, []string{"duration=2m", "network.duplicate=0.2"})
	require.NoError(t, err)
	rec := &sim.Recorder{}
	r, err := sc.Build(scenarios.RunOptions{Seed: 5, Recorder: rec})
	require.NoError(t, err)
	k := newSpaceTimeSink(r.Sim, true)
	r.Sim.AddSink(k)
	r.Execute(scenarios.RunOptions{Seed: 5})
	st := k.diagram(&reports.Timeline{EndMs: 1})
	seen := map[dupKey]bool{}
	want, kept := 0, 0
	for _, x := range rec.Records {
		if x.Type != sim.RecDeliver && x.Type != sim.RecDrop {
			continue
		}
		if kept++; kept > len(st.Messages) {
			break
		}
		if x.Type == sim.RecDeliver {
			key := dupKey{x.Peer, x.Node, x.Kind, x.SentAt}
			if seen[key] {
				want++
			}
			seen[key] = true
		}
	}
	require.Greater(t, len(st.Messages), 2*spaceTimeLead, "the generations turned over")
	require.Greater(t, want, 100)
	require.Equal(t, want, countFate(*st, "duplicate"))
}
