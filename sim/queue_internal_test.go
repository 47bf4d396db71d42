package sim

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// The queue pops events in (at, seq) order whatever its representation:
// random pushes and pops that grow it past sortedMax (heap) and shrink it
// below sortedMin (sorted array) again agree with a reference order.
func TestQueueOrderAcrossRepresentations(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var q queue
	var seq uint64
	var ref []event // the reference: kept sorted ascending
	insert := func(e event) {
		i := len(ref)
		for i > 0 && e.before(&ref[i-1]) {
			i--
		}
		ref = append(ref, event{})
		copy(ref[i+1:], ref[i:])
		ref[i] = e
	}
	now := Time(0)
	sawHeap := false
	for step := 0; step < 200000; step++ {
		grow := (step/5000)%2 == 0 // alternate phases that grow and drain the queue
		if q.len() == 0 || (grow && r.IntN(3) > 0) || (!grow && r.IntN(4) == 0) {
			seq++
			e := event{at: now + Time(r.IntN(50)), seq: seq, ref: int32(step)}
			q.push(e)
			insert(e)
		} else {
			var got event
			q.pop(&got)
			require.Equal(t, ref[0], got, "step %d", step)
			ref = ref[1:]
			now = got.at
		}
		sawHeap = sawHeap || q.heap
		require.Equal(t, len(ref), q.len())
	}
	require.True(t, sawHeap, "the test must exercise the heap representation")
}
