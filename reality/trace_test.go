package reality

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/checker"
	"github.com/electsim/electsim/sim"
)

const s = time.Second

// gcPauseReports is Kleppmann's story as three real clients would report
// it, monotonic readings offset by 1000 s (the machine's uptime): n1 holds
// the lock, is paused 5 s–13 s, n2 acquires at 9 s, n1 resumes believing it
// holds the lock and learns it lost it at 13.2 s (its next Extend fails).
func gcPauseReports(base time.Duration) []Report {
	return []Report{
		{Mono: base + 100*time.Millisecond, Node: 0, What: Acquired},
		{Mono: base + 1*s, Node: 0, What: Extended},
		{Mono: base + 4*s, Node: 0, What: Acting},
		{Mono: base + 5*s, Node: 0, What: Paused},
		{Mono: base + 9*s, Node: 1, What: Acquired},
		{Mono: base + 13*s, Node: 0, What: Resumed},
		{Mono: base + 13200*time.Millisecond, Node: 0, What: Lost},
	}
}

func TestConvertGCPauseIsSplitBrainForTheChecker(t *testing.T) {
	w := World{Candidates: 3, Stores: 1}
	base := 1000 * s
	recs := Convert(w, gcPauseReports(base), base, base+20*s)
	rep := checker.Run(w.Input(recs))

	sb, ok := rep.Check(checker.CheckSplitBrain)
	require.True(t, ok)
	require.Equal(t, checker.StatusViolated, sb.Status, sb.Summary)
	require.Len(t, rep.Overlaps, 1)
	o := rep.Overlaps[0]
	require.Equal(t, sim.Time(9*s), o.From, "the overlap starts when n2 acquires")
	require.Equal(t, sim.Time(13200*time.Millisecond), o.To, "and ends when n1 learns it lost the lock")

	require.NotEmpty(t, rep.Failovers, "the pause removed the leader")
	f := rep.Failovers[0]
	require.True(t, f.Completed)
	require.Equal(t, 4*s, f.Latency, "from the pause to n2's acquisition")
}

// The must-refute twin: the same clients without the pause hand over
// cleanly (n1 loses, then n2 acquires): no split brain.
func TestConvertCleanHandoverIsNoSplitBrain(t *testing.T) {
	w := World{Candidates: 3, Stores: 1}
	reports := []Report{
		{Mono: 100 * time.Millisecond, Node: 0, What: Acquired},
		{Mono: 8 * s, Node: 0, What: Lost},
		{Mono: 9 * s, Node: 1, What: Acquired},
	}
	rep := checker.Run(w.Input(Convert(w, reports, 0, 20*s)))
	sb, _ := rep.Check(checker.CheckSplitBrain)
	require.NotEqual(t, checker.StatusViolated, sb.Status, sb.Summary)
	require.Empty(t, rep.Overlaps)
}

func TestConvertCrashEndsTheTenureAsTheEngineDoes(t *testing.T) {
	w := World{Candidates: 2, Stores: 1}
	reports := []Report{
		{Mono: 1 * s, Node: 0, What: Acquired},
		{Mono: 5 * s, Node: 0, What: Crashed},
		{Mono: 8 * s, Node: 1, What: Acquired},
		{Mono: 10 * s, Node: 0, What: Restarted},
		{Mono: 11 * s, Node: 0, What: Acquired}, // refused in reality; here: a second tenure is a new epoch
	}
	recs := Convert(w, reports, 0, 12*s)
	var types []sim.RecordType
	for _, r := range recs {
		types = append(types, r.Type)
	}
	require.Equal(t, []sim.RecordType{sim.RecStart, sim.RecStart, sim.RecStart, sim.RecLead, sim.RecStepDown, sim.RecCrash,
		sim.RecLead, sim.RecStart, sim.RecLead, sim.RecEnd}, types)
	require.Equal(t, sim.FactCrashed, recs[4].Fact)
	require.Equal(t, int64(1), recs[4].Epoch)
	require.Equal(t, int64(1), recs[7].A, "a restart")
	require.Equal(t, []int64{1, 2, 3}, []int64{recs[3].Epoch, recs[6].Epoch, recs[8].Epoch}, "epochs in acquisition order")

	rep := checker.Run(w.Input(recs))
	require.NotEmpty(t, rep.Failovers)
	require.Equal(t, 3*s, rep.Failovers[0].Latency)
}

func TestConvertOrdersClampsAndIgnoresStrays(t *testing.T) {
	w := World{Candidates: 1, Stores: 1}
	reports := []Report{
		{Mono: 3 * s, Node: 0, What: Lost},     // out of order: sorted after the acquisition
		{Mono: 1 * s, Node: 0, What: Acquired}, // before start: clamped to 0
		{Mono: 4 * s, Node: 0, What: Lost},     // not leading: no record
		{Mono: 4 * s, Node: 7, What: Acquired}, // no such candidate
		{Mono: 5 * s, Node: 0, What: Extended}, // no record
		{Mono: 5 * s, Node: 0, What: Acting},   // no record
	}
	recs := Convert(w, reports, 2*s, 3*s)
	require.Len(t, recs, 5) // 2 starts, lead, step down, end
	require.Equal(t, sim.RecLead, recs[2].Type)
	require.Equal(t, sim.Time(0), recs[2].At)
	require.Equal(t, sim.RecStepDown, recs[3].Type)
	require.Equal(t, sim.Time(s), recs[3].At)
	require.Equal(t, sim.RecEnd, recs[4].Type)
	require.Equal(t, sim.Time(3*s), recs[4].At, "the end is never before the last report")
}

func TestParseLineRoundTripsAndRefusesHarnessReports(t *testing.T) {
	for w := Acquired; w <= Acting; w++ {
		r, err := ParseLine(2, FormatLine(123456789, w))
		require.NoError(t, err)
		require.Equal(t, Report{Mono: 123456789, Node: 2, What: w}, r)
	}
	for _, bad := range []string{"", "12", "x acquired", "-1 lost", "5 crashed", "5 paused", "5 acquired extra"} {
		_, err := ParseLine(0, bad)
		require.Error(t, err, bad)
	}
}

// A cut is a network fault the checker knows: n1 is cut off the store at
// 5 s, n2 acquires at 9 s, n1's session ends at 9.6 s. The overlap is
// 0.6 s and the failover is measured from the cut, as the engine's
// partition of the leader is.
func TestConvertCutIsAPartitionForTheChecker(t *testing.T) {
	w := World{Candidates: 3, Stores: 1}
	reports := []Report{
		{Mono: 100 * time.Millisecond, Node: 0, What: Acquired},
		{Mono: 5 * s, Node: 0, What: Cut},
		{Mono: 9 * s, Node: 1, What: Acquired},
		{Mono: 9600 * time.Millisecond, Node: 0, What: Lost},
		{Mono: 12 * s, Node: 0, What: Healed},
	}
	recs := Convert(w, reports, 0, 20*s)
	var cuts, heals int
	for _, r := range recs {
		if r.Type == sim.RecFault {
			require.Len(t, r.Links, 2, "both ways between n1 and the store")
			switch r.Fact {
			case sim.FactLinksCut:
				cuts++
			case sim.FactLinksRestored:
				heals++
			}
		}
	}
	require.Equal(t, 1, cuts)
	require.Equal(t, 1, heals)
	rep := checker.Run(w.Input(recs))
	require.Len(t, rep.Overlaps, 1)
	require.Equal(t, 600*time.Millisecond, time.Duration(rep.Overlaps[0].To-rep.Overlaps[0].From))
	require.NotEmpty(t, rep.Failovers, "the cut removed the leader")
	require.Equal(t, 4*s, rep.Failovers[0].Latency, "from the cut to n2's acquisition")

	// The twin: without the cut the same reports measure no failover.
	var uncut []Report
	for _, r := range reports {
		if r.What != Cut && r.What != Healed {
			uncut = append(uncut, r)
		}
	}
	require.Empty(t, checker.Run(w.Input(Convert(w, uncut, 0, 20*s))).Failovers)
}
