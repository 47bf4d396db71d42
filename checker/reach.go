package checker

import (
	"github.com/electsim/electsim/sim"
)

// reach follows the network's directed reachability matrix from the typed
// facts of the engine's network fault records: each carries exactly the
// links it cut (sim.FactLinksCut) or restored (sim.FactLinksRestored), so
// the matrix equals the engine's after every record by construction. Detail
// strings are never read.
type reach struct {
	n   int
	cut []bool // from*n+to: the link is cut
}

func newReach(n int) *reach { return &reach{n: n, cut: make([]bool, n*n)} }

// grow resizes the matrix to n nodes, keeping what is known.
func (r *reach) grow(n int) {
	if n <= r.n {
		return
	}
	cut := make([]bool, n*n)
	for f := 0; f < r.n; f++ {
		copy(cut[f*n:f*n+r.n], r.cut[f*r.n:(f+1)*r.n])
	}
	r.n, r.cut = n, cut
}

// ok reports whether messages from one node reach another.
func (r *reach) ok(from, to sim.NodeID) bool {
	if from == to {
		return true
	}
	if from < 0 || to < 0 || int(from) >= r.n || int(to) >= r.n {
		return true
	}
	return !r.cut[int(from)*r.n+int(to)]
}

// both reports whether a and b can exchange messages both ways.
func (r *reach) both(a, b sim.NodeID) bool { return r.ok(a, b) && r.ok(b, a) }

// isNetFault reports whether a record changes reachability.
func isNetFault(rec *sim.Record) bool {
	return rec.Type == sim.RecFault && (rec.Fact == sim.FactLinksCut || rec.Fact == sim.FactLinksRestored)
}

// apply updates the matrix for a network fault record.
func (r *reach) apply(rec *sim.Record) {
	cut := rec.Fact == sim.FactLinksCut
	for _, l := range rec.Links {
		if l.From < 0 || l.To < 0 {
			continue
		}
		if m := max(int(l.From), int(l.To)) + 1; m > r.n {
			r.grow(m)
		}
		if l.From != l.To {
			r.cut[int(l.From)*r.n+int(l.To)] = cut
		}
	}
}
