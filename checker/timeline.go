package checker

import (
	"github.com/electsim/electsim/sim"
)

// tenure is one node's stretch of acting as leader: from its RecLead to its
// RecStepDown (a crash records one), its next RecLead, or the end of the
// trace. A paused leader's tenure goes on: it still believes it leads.
type tenure struct {
	node         sim.NodeID
	epoch, token int64
	start, end   sim.Time
	startRec     int // index of the RecLead record
	endRec       int // index of the record that ended it; -1 if open at the end
	why          string
}

// open reports whether the tenure lasted until the end of the trace.
func (t *tenure) open() bool { return t.endRec < 0 }

// span is a true-time interval of one node: a pause or a crash.
type span struct {
	node     sim.NodeID
	from, to sim.Time
	open     bool // lasted until the end of the trace
}

// timeline is what the checks need from the trace, gathered in one pass.
type timeline struct {
	end     sim.Time
	tenures []tenure // in start order
	pauses  []span
	crashes []span
}

func buildTimeline(recs []sim.Record) *timeline {
	tl := &timeline{}
	if len(recs) > 0 {
		tl.end = recs[len(recs)-1].At
	}
	n := numNodes(recs)
	openT := minusOnes(n) // node → index of its open tenure
	openP := minusOnes(n) // node → index of its open pause
	openC := minusOnes(n) // node → index of its open crash
	closeT := func(n sim.NodeID, at sim.Time, rec int, why string) {
		if k := openT[n]; k >= 0 {
			t := &tl.tenures[k]
			t.end, t.endRec, t.why = at, rec, why
			openT[n] = -1
		}
	}
	for i := range recs {
		r := &recs[i]
		switch r.Type {
		case sim.RecLead:
			closeT(r.Node, r.At, i, "new tenure")
			openT[r.Node] = len(tl.tenures)
			tl.tenures = append(tl.tenures, tenure{node: r.Node, epoch: r.Epoch, token: r.Token, start: r.At, startRec: i, endRec: -1})
		case sim.RecStepDown:
			closeT(r.Node, r.At, i, r.Detail)
		case sim.RecCrash:
			closeT(r.Node, r.At, i, "crash")
			if k := openP[r.Node]; k >= 0 {
				tl.pauses[k].to = r.At
				openP[r.Node] = -1
			}
			openC[r.Node] = len(tl.crashes)
			tl.crashes = append(tl.crashes, span{node: r.Node, from: r.At})
		case sim.RecStart:
			if k := openC[r.Node]; k >= 0 {
				tl.crashes[k].to = r.At
				openC[r.Node] = -1
			}
		case sim.RecPause:
			openP[r.Node] = len(tl.pauses)
			tl.pauses = append(tl.pauses, span{node: r.Node, from: r.At})
		case sim.RecResume:
			if k := openP[r.Node]; k >= 0 {
				tl.pauses[k].to = r.At
				openP[r.Node] = -1
			}
		}
	}
	for i := 0; i < n; i++ { // what is still open lasts until the end
		if k := openT[i]; k >= 0 {
			tl.tenures[k].end = tl.end
		}
		if k := openP[i]; k >= 0 {
			tl.pauses[k].to, tl.pauses[k].open = tl.end, true
		}
		if k := openC[i]; k >= 0 {
			tl.crashes[k].to, tl.crashes[k].open = tl.end, true
		}
	}
	return tl
}

// numNodes returns one more than the highest node ID the records mention.
func numNodes(recs []sim.Record) int {
	n := 0
	for i := range recs {
		if int(recs[i].Node) >= n {
			n = int(recs[i].Node) + 1
		}
		if int(recs[i].Peer) >= n {
			n = int(recs[i].Peer) + 1
		}
	}
	return n
}

func minusOnes(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = -1
	}
	return s
}

// tenureOf returns the index of the tenure of node carrying token that
// started at or before at (the latest such), or -1.
func (tl *timeline) tenureOf(node sim.NodeID, token int64, at sim.Time) int {
	k := -1
	for i := range tl.tenures {
		t := &tl.tenures[i]
		if t.node == node && t.token == token && t.start <= at {
			k = i
		}
	}
	return k
}

// pauseAt returns the pause of node that began at exactly at, if any.
func (tl *timeline) pauseAt(node sim.NodeID, at sim.Time) (span, bool) {
	for _, p := range tl.pauses {
		if p.node == node && p.from == at {
			return p, true
		}
	}
	return span{}, false
}
