package checker

import (
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/electsim/electsim/sim"
)

// lockHistory draws a history of lock operations by up to three nodes:
// instantaneous acquires and releases at increasing or equal times, so
// some histories are sequential and some have operations that touch.
func lockHistory(t *rapid.T) []porcupine.Operation {
	n := rapid.IntRange(0, 12).Draw(t, "n")
	var ops []porcupine.Operation
	at := int64(0)
	for i := 0; i < n; i++ {
		at += rapid.Int64Range(0, 2).Draw(t, "gap")
		node := sim.NodeID(rapid.IntRange(0, 2).Draw(t, "node"))
		op := lockAcquire
		if rapid.Bool().Draw(t, "release") {
			op = lockRelease
		}
		ops = append(ops, porcupine.Operation{ClientId: int(node), Input: lockInput{op: op, node: node}, Call: at, Return: at})
	}
	return ops
}

// sequentialOK never says Ok where porcupine would not, and on every
// sequential history it decides exactly as porcupine does.
func TestSequentialOKAgreesWithPorcupine(t *testing.T) {
	m := lockModel(func(sim.NodeID) string { return "n" })
	rapid.Check(t, func(t *rapid.T) {
		ops := lockHistory(t)
		fast := sequentialOK(m, ops)
		full := porcupine.CheckOperationsTimeout(m, ops, time.Minute)
		if fast {
			require.Equal(t, porcupine.Ok, full, "fast path said Ok for %v", ops)
		}
		sequential := true
		for i := 1; i < len(ops); i++ {
			sequential = sequential && ops[i].Call > ops[i-1].Return
		}
		if sequential {
			require.Equal(t, full == porcupine.Ok, fast, "sequential history %v", ops)
		}
	})
}

// Must refute: a sequential history the model refuses (a second acquire
// while the lock is held) is not decided Ok by the fast path; and touching
// operations are left to porcupine even when legal.
func TestSequentialOKRefuses(t *testing.T) {
	m := lockModel(func(sim.NodeID) string { return "n" })
	acq := func(node sim.NodeID, at int64) porcupine.Operation {
		return porcupine.Operation{ClientId: int(node), Input: lockInput{op: lockAcquire, node: node}, Call: at, Return: at}
	}
	rel := func(node sim.NodeID, at int64) porcupine.Operation {
		return porcupine.Operation{ClientId: int(node), Input: lockInput{op: lockRelease, node: node}, Call: at, Return: at}
	}
	require.True(t, sequentialOK(m, []porcupine.Operation{acq(0, 1), rel(0, 2), acq(1, 3)}))
	require.False(t, sequentialOK(m, []porcupine.Operation{acq(0, 1), acq(1, 2)}), "two holders")
	require.False(t, sequentialOK(m, []porcupine.Operation{acq(0, 1), rel(0, 2), acq(1, 2)}), "touching: porcupine decides")
	require.True(t, porcupine.CheckOperations(m, []porcupine.Operation{acq(0, 1), rel(0, 2), acq(1, 2)}), "yet linearizable")
}
