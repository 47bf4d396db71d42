package checker

import (
	"time"

	"github.com/anishathalye/porcupine"
)

// decide is porcupine's verdict on ops under m within timeout, without
// the search when the history is sequential (sequentialOK).
func decide(m porcupine.Model, ops []porcupine.Operation, timeout time.Duration) porcupine.CheckResult {
	if sequentialOK(m, ops) {
		return porcupine.Ok // one linearization, and the model accepts it
	}
	return porcupine.CheckOperationsTimeout(m, ops, timeout)
}

// sequentialOK decides, without porcupine's search, the common history that
// needs none: one whose operations, in the given order, are sequential
// (each returns strictly before the next is called) and which the model
// accepts in that order. Such a history has exactly one linearization, its
// real-time order, so it is linearizable exactly when the model accepts
// it: true then means porcupine would answer Ok. false means "not decided
// here" (operations that overlap or touch, which porcupine treats as
// concurrent, or a step the model refuses): the caller asks porcupine,
// which also explains an illegal history. Models that partition their
// history are left to porcupine.
func sequentialOK(m porcupine.Model, ops []porcupine.Operation) bool {
	if m.Partition != nil || m.PartitionEvent != nil || m.Step == nil || m.Init == nil {
		return false
	}
	state := m.Init()
	for i := range ops {
		if ops[i].Return < ops[i].Call || (i > 0 && ops[i].Call <= ops[i-1].Return) {
			return false
		}
		ok, next := m.Step(state, ops[i].Input, ops[i].Output)
		if !ok {
			return false
		}
		state = next
	}
	return true
}
