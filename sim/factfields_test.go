package sim

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// recordOf copies an effect into a record the way the engine does
// (nodeState.effect), so the tests read what a checker reads.
func recordOf(e Effect) Record {
	return Record{Type: RecEffect, Name: e.Name, Detail: e.Detail, Key: e.Key, A: e.A, B: e.B, C: e.C, Fact: e.Fact}
}

// TestFactFieldsRoundTrip: what an emitter states through a fact family's
// fields, a reader reads back by name, for any values.
func TestFactFieldsRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		i64 := func(l string) int64 { return rapid.Int64().Draw(t, l) }
		job := rapid.IntRange(-1, 1<<20).Draw(t, "job")
		ex := ExecFields{Exec: i64("exec"), SlotRef: SlotRef{Slot: i64("slot"), Job: job}}
		r := recordOf(ex.ExecEffect("n", "d", FactExecStarted))
		require.Equal(t, ex, r.Exec())
		run := RunFields{Token: i64("token"), SlotRef: SlotRef{Slot: i64("slot2"), Job: job}}
		r = recordOf(run.RunEffect("n", "d", FactRunStarted))
		require.Equal(t, run, r.Run())
		l := LeaseFields{Holder: NodeID(rapid.IntRange(-1, 1000).Draw(t, "holder")), Token: i64("ltoken")}
		r = recordOf(Effect{Name: "n", A: int64(l.Holder), B: l.Token, Fact: FactLeaseAcquired}) // the stores also state a revision in C
		require.Equal(t, l, r.Lease())
		st := StateFields{State: i64("state"), Epoch: i64("epoch")}
		r = recordOf(st.StateEffect("n"))
		require.Equal(t, st, r.ProtocolState())
		require.Equal(t, FactProtocolState, r.Fact)
	})
}

// TestFactFieldsPositions pins where each named field travels: the JSON
// trace ("a", "b", "c") and the facts table in facts.go document these
// positions, so a swap in an accessor must fail here.
func TestFactFieldsPositions(t *testing.T) {
	e := ExecFields{Exec: 1, SlotRef: SlotRef{Slot: 2, Job: 3}}.ExecEffect("", "", FactExecCreated)
	require.Equal(t, [3]int64{1, 2, 3}, [3]int64{e.A, e.B, e.C}, "execution A of slot B of job index C")
	e = RunFields{Token: 4, SlotRef: SlotRef{Slot: 5, Job: 6}}.RunEffect("", "", FactRunStarted)
	require.Equal(t, [3]int64{4, 5, 6}, [3]int64{e.A, e.B, e.C}, "token A, slot B, job index C")
	r0 := Record{Type: RecEffect, A: 7, B: 8, C: 99, Fact: FactLeaseRenewed}
	require.Equal(t, LeaseFields{Holder: 7, Token: 8}, r0.Lease(), "holder A, token B")
	e = StateFields{State: 9, Epoch: 10}.StateEffect("")
	require.Equal(t, [3]int64{9, 10, 0}, [3]int64{e.A, e.B, e.C}, "state A, epoch B")
	r := Record{Type: RecPersist, A: 11, B: 12}
	require.Equal(t, PersistFields{Bytes: 11, Durable: 12}, r.Persist())
	r = Record{Type: RecTimer, A: 13, B: 14}
	require.Equal(t, TimerFields{Tag: 13, ID: 14}, r.Timer())
	r = Record{Type: RecEffect, B: 15, Fact: FactLeaseWriteLag}
	require.Equal(t, 15*time.Nanosecond, r.WriteLag())
	require.True(t, (&Record{Type: RecStart, A: 1}).Restarted())
	require.False(t, (&Record{Type: RecStart}).Restarted())
}
