package checker

import (
	"strings"

	"github.com/electsim/electsim/sim"
)

// reach reconstructs the network's directed reachability matrix from the
// engine's network fault records (sim/control.go formats their Detail; this
// parser follows those formats). Node names are resolved with Input.Names,
// so without names only net.isolate and net.heal can be followed.
type reach struct {
	n     int
	cut   []bool // from*n+to: the link is cut
	byNam map[string]sim.NodeID
}

func newReach(n int, names []string) *reach {
	r := &reach{n: n, cut: make([]bool, n*n), byNam: map[string]sim.NodeID{}}
	for i, nm := range names {
		if nm != "" {
			r.byNam[nm] = sim.NodeID(i)
		}
	}
	return r
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

func (r *reach) set(from, to sim.NodeID, cut bool) {
	if from == to || from < 0 || to < 0 || int(from) >= r.n || int(to) >= r.n {
		return
	}
	r.cut[int(from)*r.n+int(to)] = cut
}

// isNetFault reports whether a fault record changes reachability.
func isNetFault(rec *sim.Record) bool {
	switch rec.Name {
	case "net.cut", "net.connect", "net.partition", "net.isolate", "net.one_way", "net.bridge", "net.heal":
		return true
	}
	return false
}

// apply updates the matrix for a network fault record.
func (r *reach) apply(rec *sim.Record) {
	d := rec.Detail
	switch rec.Name {
	case "net.cut", "net.connect":
		a, b, ok := strings.Cut(d, " -> ")
		if !ok {
			return
		}
		from, ok1 := r.byNam[a]
		to, ok2 := r.byNam[b]
		if ok1 && ok2 {
			r.set(from, to, rec.Name == "net.cut")
		}
	case "net.partition":
		var groups [][]sim.NodeID
		for _, g := range strings.Split(d, " | ") {
			groups = append(groups, r.group(g))
		}
		for _, l := range sim.CrossLinks(groups) {
			r.set(l[0], l[1], true)
		}
	case "net.isolate":
		id := rec.Node
		if id < 0 {
			id2, ok := r.byNam[d]
			if !ok {
				return
			}
			id = id2
		}
		for i := 0; i < r.n; i++ {
			r.set(id, sim.NodeID(i), true)
			r.set(sim.NodeID(i), id, true)
		}
	case "net.one_way":
		a, b, ok := strings.Cut(d, " -/-> ")
		if !ok {
			return
		}
		for _, x := range r.group(a) {
			for _, y := range r.group(b) {
				r.set(x, y, true)
			}
		}
	case "net.bridge":
		sides, via, ok := strings.Cut(d, " via ")
		if !ok {
			return
		}
		l, rt, ok := strings.Cut(sides, " | ")
		if !ok {
			return
		}
		bridge, hasBridge := r.byNam[via]
		for _, a := range r.group(l) {
			for _, b := range r.group(rt) {
				if hasBridge && (a == bridge || b == bridge) {
					continue
				}
				r.set(a, b, true)
				r.set(b, a, true)
			}
		}
	case "net.heal":
		for i := range r.cut {
			r.cut[i] = false
		}
	}
}

// group parses "{a,b,c}" into IDs, skipping unknown names.
func (r *reach) group(s string) []sim.NodeID {
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(s, "{")
	s = strings.TrimSuffix(s, "}")
	var out []sim.NodeID
	if s == "" {
		return out
	}
	for _, nm := range strings.Split(s, ",") {
		if id, ok := r.byNam[nm]; ok {
			out = append(out, id)
		}
	}
	return out
}
