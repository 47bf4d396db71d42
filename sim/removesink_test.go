package sim_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/sim"
)

// quitter counts records and removes itself after max of them.
type quitter struct {
	s   *sim.Sim
	n   int
	max int
}

func (q *quitter) Record(*sim.Record) {
	q.n++
	if q.n == q.max {
		q.s.RemoveSink(q)
	}
}

// A sink that removes itself mid-run gets nothing more, another sink keeps
// getting every record, and the trace hash is the one of a run without it.
func TestRemoveSinkMidRun(t *testing.T) {
	plain, ids := newVoteCluster(7, 5)
	newCrashDriver(plain, ids, 2)
	plain.RunUntil(sim.Time(time.Minute))

	s, ids := newVoteCluster(7, 5)
	newCrashDriver(s, ids, 2)
	q := &quitter{s: s, max: 100}
	all := &sim.Recorder{}
	s.AddSink(q)
	s.AddSink(all)
	s.RunUntil(sim.Time(time.Minute))
	require.Equal(t, 100, q.n, "no record after it removed itself")
	require.Greater(t, len(all.Records), 1000, "the other sink got the whole run")
	require.Equal(t, plain.TraceHashHex(), s.TraceHashHex())

	s.RemoveSink(all) // removing the last full sink
	n := len(all.Records)
	s.RunUntil(sim.Time(2 * time.Minute))
	require.Equal(t, n, len(all.Records))
	s.RemoveSink(all) // twice: nothing to do
}
