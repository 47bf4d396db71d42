package checker

import (
	"sort"

	"github.com/anishathalye/porcupine"
)

// visualizeMax is the most operations porcupine's visualization of one
// history shows. Larger histories are drawn as a window of at most this many
// operations: around the first violation, or the end of the largest
// partition when there is none (Linearization.Window says which).
const visualizeMax = 1500

// segment is one stretch of a partition's history between two quiescent
// instants: every operation before it returned before any of it was
// called, and every operation after it was called after all of it returned.
type segment struct {
	from, to int        // ops[from:to] of the partition, sorted by call
	init     storeState // the partition's state before it
}

// segmentEnd returns the end of the segment that starts at ops[i] in a
// partition's operations sorted by call: ops[i:j] is a stretch between two
// quiescent instants. Operations that touch (one returns when another is
// called) are concurrent for porcupine, so they stay together.
func segmentEnd(ops []porcupine.Operation, i int) int {
	end, j := ops[i].Return, i+1
	for j < len(ops) && ops[j].Call <= end {
		end = max(end, ops[j].Return)
		j++
	}
	return j
}

// checkResourceSegments decides the fenced-store history partition by
// partition and, within a partition, segment by segment from the state the
// earlier segments reached. The verdict equals porcupine's on the whole
// history: a linearization must place a segment's operations after every
// earlier segment's and before every later one's, and after a linearizable
// segment the state is the same whichever linearization porcupine picked
// (storeState.advance). Porcupine then never holds more than one segment:
// a month of cron writes is checked in a few megabytes, linear in the
// number of writes. Each segment's porcupine call is bounded by
// Input.PorcupineTimeout of wall time, measured by porcupine itself (the
// checker reads no clock); a segment that runs out makes the check unknown
// and ends it.
func (c *checker) checkResourceSegments(parts [][]porcupine.Operation) (porcupine.CheckResult, []unplaced, *segment, int) {
	res := porcupine.Ok
	var bad []unplaced
	var window *segment // where to draw: the first violation's window
	windowPart := -1
	for p, ops := range parts {
		sort.SliceStable(ops, func(a, b int) bool { return ops[a].Call < ops[b].Call })
		state := storeState{}
		if !c.hasStory() {
			// Nothing keeps an earlier segment's state (no window to
			// draw), so the owners can grow in place.
			state.base = ownerBase{}
		}
		var starts []segment // segment starts and their states, for the window
		for from, to := 0, 0; from < len(ops); from = to {
			to = segmentEnd(ops, from)
			if c.hasStory() {
				starts = append(starts, segment{from: from, to: to, init: state})
			}
			seg := ops[from:to]
			if len(seg) == 1 {
				// Most segments are one write: decide's shortcut
				// (sequentialOK) for it, typed, so that it builds no
				// model and boxes no state (half the check's time on a
				// month of writes): its only linearization is itself,
				// legal exactly when the model's step allows it.
				if ok, _ := state.legal(seg[0].Input.(*writeInput), seg[0].Output.(bool)); ok {
					state = state.advance(seg)
					continue
				}
			}
			m := fencedStoreModelFrom(c.in.name, nil, state)
			r := decide(m, seg, c.in.PorcupineTimeout) // sequential segments need no search either
			switch r {
			case porcupine.Unknown:
				return porcupine.Unknown, nil, nil, -1
			case porcupine.Illegal:
				res = porcupine.Illegal
				_, info := porcupine.CheckOperationsVerbose(m, seg, c.in.PorcupineTimeout)
				for _, u := range illegalParts(m, [][]porcupine.Operation{seg}, info) {
					u.partition, u.prefix, u.size = p, u.prefix+from, len(ops)
					bad = append(bad, u)
				}
				if window == nil && c.hasStory() {
					w := windowEnding(starts, to)
					window, windowPart = &w, p
				}
			}
			state = state.advance(seg)
		}
		if window == nil && c.hasStory() && (windowPart < 0 || len(ops) > len(parts[windowPart])) && len(ops) > visualizeMax {
			w := windowEnding(starts, len(ops))
			window, windowPart = &w, p
		}
	}
	return res, bad, window, windowPart
}

// windowEnding picks the latest segment start from which the operations up
// to end number at most visualizeMax (at least one segment).
func windowEnding(starts []segment, end int) segment {
	k := len(starts) - 1
	for k > 0 && starts[k].from >= end {
		k--
	}
	for k > 0 && end-starts[k-1].from <= visualizeMax {
		k--
	}
	w := starts[k]
	w.to = end
	return w
}
