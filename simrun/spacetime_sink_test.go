package simrun

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/reports"
	"github.com/electsim/electsim/scenario"
	"github.com/electsim/electsim/sim"
)

// sinkRun runs partition.yaml with sets and seed, a space-time sink (told
// whether the run has faults) and a recorder of the whole trace
// subscribed, and checks that the sink left the trace as a plain run has
// it. It returns the sink and the run's records.
func sinkRun(t *testing.T, sets []string, seed uint64, faults bool) (*spaceTimeSink, []sim.Record) {
	t.Helper()
	sc, err := scenario.LoadWith(partition, sets)
	require.NoError(t, err)
	plain, err := sc.Run(scenario.RunOptions{Seed: seed})
	require.NoError(t, err)
	rec := &sim.Recorder{}
	r, err := sc.Build(scenario.RunOptions{Seed: seed, Recorder: rec})
	require.NoError(t, err)
	k := newSpaceTimeSink(r.Sim, faults)
	r.Sim.AddSink(k)
	r.Execute(scenario.RunOptions{Seed: seed})
	require.Equal(t, plain.Sim.TraceHashHex(), r.Sim.TraceHashHex(), "the sink only reads")
	return k, rec.Records
}

// messagesOf are the deliveries and drops among recs, in order.
func messagesOf(recs []sim.Record) []sim.Record {
	var msgs []sim.Record
	for _, x := range recs {
		if x.Type == sim.RecDeliver || x.Type == sim.RecDrop {
			msgs = append(msgs, x)
		}
	}
	return msgs
}

// requireStretch checks that the diagram's messages are msgs[first:] as far
// as they go: one contiguous stretch of the run's.
func requireStretch(t *testing.T, st *reports.SpaceTime, msgs []sim.Record, first int) {
	t.Helper()
	for i, m := range st.Messages {
		x := msgs[first+i]
		require.Equal(t, msT(x.At), m.AtMs, "message %d", i)
		require.Equal(t, int(x.Peer), m.From)
		require.Equal(t, int(x.Node), m.To)
	}
}

// A long featured run's diagram keeps the first reports.MaxSpaceTimeMessages
// messages, then unsubscribes; its Total still counts every delivery and
// drop of the run (checked against a recorder of the whole trace), and the
// trace is the same with it.
func TestSpaceTimeSinkUnsubscribesWhenFull(t *testing.T) {
	k, recs := sinkRun(t, []string{"duration=10m", "network.drop=0.05"}, 2, false)
	msgs := messagesOf(recs)
	require.Greater(t, len(msgs), reports.MaxSpaceTimeMessages, "the run outgrows the diagram")
	st := k.diagram(&reports.Timeline{EndMs: 1})
	require.True(t, k.full)
	require.Len(t, st.Messages, reports.MaxSpaceTimeMessages)
	requireStretch(t, st, msgs, 0)
	require.Equal(t, len(msgs), st.Total)
	require.True(t, st.Truncated())
}

// When the first fault comes after the diagram's first messages, the
// diagram is the lead-up to that fault (spaceTimeLead messages) and what
// followed, not the run's first minutes: its window holds the fault.
func TestSpaceTimeSinkMovesToALateFirstFault(t *testing.T) {
	k, recs := sinkRun(t, []string{"duration=10m", "faults[0].at=5m"}, 3, true)
	msgs := messagesOf(recs)
	faultMs := -1.0
	for _, x := range recs {
		if x.Type == sim.RecFault || x.Type == sim.RecCrash || x.Type == sim.RecPause {
			faultMs = msT(x.At)
			break
		}
	}
	require.InDelta(t, 300_000, faultMs, 1000, "the partition isolates the leader at 5 min")
	st := k.diagram(&reports.Timeline{EndMs: 1})
	require.True(t, k.full)
	require.Len(t, st.Messages, reports.MaxSpaceTimeMessages)
	require.Equal(t, len(msgs), st.Total)
	// The kept messages are the spaceTimeLead before the fault and the
	// rest after it.
	before := 0
	for _, x := range msgs {
		if msT(x.At) < faultMs {
			before++
		}
	}
	requireStretch(t, st, msgs, before-spaceTimeLead)
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

// A fault that comes just after the first messages filled the diagram,
// before the ring of latest ones holds a whole lead-up, still gets
// spaceTimeLead messages before it: the ring is topped up from the end of
// the first messages (fed here record by record, the fault after the
// 100th message past the cap).
func TestSpaceTimeSinkLeadUpSpansTheFirstMessages(t *testing.T) {
	sc, err := scenario.Load(partition)
	require.NoError(t, err)
	r, err := sc.Build(scenario.RunOptions{Seed: 1})
	require.NoError(t, err)
	k := newSpaceTimeSink(r.Sim, true)
	const past = 100
	var msgs []sim.Record
	for i := range reports.MaxSpaceTimeMessages + past {
		at := sim.Time(i+1) * sim.Time(1e6)
		x := sim.Record{Type: sim.RecDeliver, At: at, SentAt: at - 5e5, Node: 1, Peer: 0}
		msgs = append(msgs, x)
		k.Record(&x)
		if i%10 == 0 {
			k.Record(&sim.Record{Type: sim.RecTimer, At: at, Node: 0})
		}
	}
	k.Record(&sim.Record{Type: sim.RecFault, At: msgs[len(msgs)-1].At})
	st := k.diagram(&reports.Timeline{EndMs: 1e9})
	require.Len(t, st.Messages, spaceTimeLead)
	requireStretch(t, st, msgs, len(msgs)-spaceTimeLead)
	require.Equal(t, st.Messages[0].SentMs, st.StartMs)
	require.NotEmpty(t, st.Timers)
	require.GreaterOrEqual(t, st.Timers[0].AtMs, st.StartMs)
	require.Less(t, st.Timers[0].AtMs, st.StartMs+20, "the lead-up's timers come with it")
}

// A run that has faults configured but none comes keeps its first
// messages, as a run without faults does: the ring of latest messages it
// kept meanwhile is bounded and dropped.
func TestSpaceTimeSinkKeepsTheStartWhenNoFaultComes(t *testing.T) {
	k, recs := sinkRun(t, []string{"duration=5m", "faults=[]"}, 4, true)
	msgs := messagesOf(recs)
	require.False(t, k.faulted)
	require.Len(t, k.ring, spaceTimeLead, "the sink waited for a fault with a full ring")
	require.LessOrEqual(t, len(k.seen)+len(k.seenOld), 2*spaceTimeLead, "the duplicate check forgets old deliveries")
	st := k.diagram(&reports.Timeline{EndMs: 300_000})
	require.Len(t, st.Messages, reports.MaxSpaceTimeMessages)
	requireStretch(t, st, msgs, 0)
	require.Zero(t, st.StartMs)
	require.Less(t, st.EndMs, 300_000.0, "the diagram ends at its last kept message")
	require.Equal(t, st.Messages[len(st.Messages)-1].AtMs, st.EndMs)
	require.True(t, st.Truncated())
}

// A duplicate delivery is drawn as one: the sink tells a second copy of a
// send from the first while forgetting deliveries older than two of its
// generations, and finds exactly the duplicates the whole trace has.
func TestSpaceTimeSinkTellsDuplicates(t *testing.T) {
	k, recs := sinkRun(t, []string{"duration=2m", "network.duplicate=0.2"}, 5, true)
	msgs := messagesOf(recs)
	st := k.diagram(&reports.Timeline{EndMs: 1})
	seen := map[dupKey]bool{}
	want := 0
	for _, x := range msgs[:len(st.Messages)] {
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
