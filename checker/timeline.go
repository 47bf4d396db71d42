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
	startSeq     int64 // ordinal of the RecLead record in the trace
	startWall    int64 // the node's wall clock at its RecLead (Unix ns)
	closed       bool  // a record ended it; false: open at the end of the trace
}

// open reports whether the tenure lasted until the end of the trace.
func (t *tenure) open() bool { return !t.closed }

// span is a true-time interval of one node: a pause or a crash.
type span struct {
	node     sim.NodeID
	from, to sim.Time
	open     bool // lasted until the end of the trace
}

// timeline is what the checks need from the trace, gathered as the records
// stream by: one small entry per tenure, pause and crash (what the report
// tells), never the records themselves.
type timeline struct {
	end     sim.Time
	tenures []tenure // in start order
	pauses  []span
	crashes []span
	openT   []int // node → index of its open tenure, -1
	openP   []int // node → index of its open pause, -1
	openC   []int // node → index of its open crash, -1
}

// grow makes room for n nodes.
func (tl *timeline) grow(n int) {
	for len(tl.openT) < n {
		tl.openT = append(tl.openT, -1)
		tl.openP = append(tl.openP, -1)
		tl.openC = append(tl.openC, -1)
	}
}

func (tl *timeline) closeTenure(n sim.NodeID, at sim.Time) {
	if k := tl.openT[n]; k >= 0 {
		t := &tl.tenures[k]
		t.end, t.closed = at, true
		tl.openT[n] = -1
	}
}

// add follows one non-message record (the caller has grown the tables to
// hold its node).
func (tl *timeline) add(seq int64, r *sim.Record) {
	switch r.Type {
	case sim.RecLead:
		tl.closeTenure(r.Node, r.At)
		tl.openT[r.Node] = len(tl.tenures)
		tl.tenures = append(tl.tenures, tenure{node: r.Node, epoch: r.Epoch, token: r.Token, start: r.At, startSeq: seq, startWall: r.Wall})
	case sim.RecStepDown:
		tl.closeTenure(r.Node, r.At)
	case sim.RecCrash:
		tl.closeTenure(r.Node, r.At)
		closeSpan(tl.pauses, tl.openP, r.Node, r.At)
		tl.openC[r.Node] = len(tl.crashes)
		tl.crashes = append(tl.crashes, span{node: r.Node, from: r.At})
	case sim.RecStart:
		closeSpan(tl.crashes, tl.openC, r.Node, r.At)
	case sim.RecPause:
		tl.openP[r.Node] = len(tl.pauses)
		tl.pauses = append(tl.pauses, span{node: r.Node, from: r.At})
	case sim.RecResume:
		closeSpan(tl.pauses, tl.openP, r.Node, r.At)
	}
}

// closeSpan ends node's open span (a pause or a crash) at at, if it has one.
func closeSpan(spans []span, open []int, node sim.NodeID, at sim.Time) {
	if k := open[node]; k >= 0 {
		spans[k].to = at
		open[node] = -1
	}
}

// finish closes what is still open at the end of the trace.
func (tl *timeline) finish() {
	for i := range tl.openT {
		if k := tl.openT[i]; k >= 0 {
			tl.tenures[k].end = tl.end
		}
		if k := tl.openP[i]; k >= 0 {
			tl.pauses[k].to, tl.pauses[k].open = tl.end, true
		}
		if k := tl.openC[i]; k >= 0 {
			tl.crashes[k].to, tl.crashes[k].open = tl.end, true
		}
	}
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
