package checker

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// online streams b through a Checker and returns the checks it reported
// online (Input.OnViolation), in order.
func online(b *trace) []string {
	var told []string
	in := input(b)
	in.Records = nil
	in.OnViolation = func(check string) { told = append(told, check) }
	k := New(in)
	for i := range b.recs {
		k.Record(&b.recs[i])
	}
	k.Finish(nil)
	return told
}

// docs/checkers.md, "Streaming and replay": split_brain is reported online
// once two nodes have acted as leader over a positive stretch of time. The
// step-down that ends the overlap is the first record after it began: it
// must still see the overlap (it did not, so simrun -fail-fast went on).
// Found by TestCheckerAgreesWithOracle.
func TestOnlineSplitBrainEndedByAStepDown(t *testing.T) {
	b := (&trace{}).lead(0, 0, 1, 1).lead(5, 1, 2, 2).down(10, 0, "saw term 2").end(20)
	assert.Equal(t, []string{CheckSplitBrain}, online(b))
	// Tenures that only touch are not reported, in either record order.
	b = (&trace{}).lead(0, 0, 1, 1).lead(10, 1, 2, 2).down(10, 0, "resign").end(20)
	assert.Empty(t, online(b))
	b = (&trace{}).lead(0, 0, 1, 1).down(10, 0, "resign").lead(10, 1, 2, 2).end(20)
	assert.Empty(t, online(b))
	// A second leader of an epoch is reported at its lead.
	b = (&trace{}).lead(0, 0, 3, 3).down(10, 0, "x").lead(12, 1, 3, 3).end(20)
	assert.Equal(t, []string{CheckElectionSafety}, online(b))
}
