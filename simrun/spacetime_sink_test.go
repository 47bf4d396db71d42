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
	k := newSpaceTimeSink(r.Sim)
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
