package hunt

import (
	"fmt"
	"sort"
	"time"

	"github.com/electsim/electsim/contract"
	"github.com/electsim/electsim/faults"
	"github.com/electsim/electsim/sim"
)

// pairWindow is how recently a fault must have shown for a protocol event
// to count as reached under it: a (state × fault class) pair.
const pairWindow = time.Second

// Coverage is what a search reached: protocol events (built-in trigger
// events and the algorithm's declared states), (event × fault class)
// pairs, and transitions between two events of one node (trace shapes).
type Coverage struct {
	// Events are the events and states reached, by name; EventsKnown is
	// how many the cluster can show.
	Events      []string
	EventsKnown int
	// Pairs are the (event × fault class) pairs reached, "event×class";
	// PairsKnown is how many exist (events × classes drawn).
	Pairs      []string
	PairsKnown int
	// Edges counts the distinct transitions from one event of a node to
	// its next.
	Edges int
	// Corpus is how many schedules the feedback strategy kept.
	Corpus int
}

// String is the coverage in one line.
func (c Coverage) String() string {
	return fmt.Sprintf("%d of %d events, %d of %d (event × fault class) pairs, %d transitions, corpus of %d",
		len(c.Events), c.EventsKnown, len(c.Pairs), c.PairsKnown, c.Edges, c.Corpus)
}

// alphabet numbers the events a run can show: the faults package's
// trigger events, then the algorithm's protocol states.
type alphabet struct {
	names []string
}

func newAlphabet(states []string) alphabet {
	return alphabet{names: append(faults.Events(), states...)}
}

func (a alphabet) size() int { return len(a.names) }

// numBuiltin is how many built-in events lead the alphabet (faults.Events);
// the declared protocol states follow.
var numBuiltin = len(faults.Events())

// probe is a run's coverage sink: it sees every record but deliveries and
// timers (sim.LeanSink), and keeps the run's events, pairs and edges.
type probe struct {
	a        alphabet
	seen     []sim.Time // per fault class: last time shown (sim.Never: never)
	last     map[sim.NodeID]int
	events   map[int]bool
	pairs    map[int]bool
	edges    map[int]bool
	nclasses int
}

func newProbe(a alphabet) *probe {
	p := &probe{a: a, seen: make([]sim.Time, contract.NumClasses), last: map[sim.NodeID]int{},
		events: map[int]bool{}, pairs: map[int]bool{}, edges: map[int]bool{}, nclasses: contract.NumClasses}
	for i := range p.seen {
		p.seen[i] = sim.Never
	}
	return p
}

// Message implements sim.LeanSink: deliveries are not coverage.
func (p *probe) Message(sim.RecordType, sim.DropReason, sim.MsgKind, sim.NodeID, sim.NodeID, int64, sim.Time, sim.Time) {
}

// Record implements sim.Sink.
func (p *probe) Record(r *sim.Record) {
	if cls, n := contract.ClassesOf(r); n > 0 {
		for _, c := range cls[:n] {
			p.seen[c] = r.At
		}
		return
	}
	ev := -1
	if i, ok := faults.EventOf(r); ok {
		ev = i // the alphabet's built-in events are faults.Events(), in order
	} else if st := r.ProtocolState(); r.Type == sim.RecEffect && r.Fact == sim.FactProtocolState && st.State >= 0 && int(st.State) < p.a.size()-numBuiltin {
		ev = numBuiltin + int(st.State)
	}
	if ev < 0 {
		return
	}
	p.events[ev] = true
	for c := 1; c < p.nclasses; c++ {
		if t := p.seen[c]; t != sim.Never && r.At-t <= sim.Time(pairWindow) {
			p.pairs[ev*p.nclasses+c] = true
		}
	}
	node := r.Node
	if prev, ok := p.last[node]; ok {
		p.edges[prev*p.a.size()+ev] = true
	}
	p.last[node] = ev
}

// reach is everything the search has reached.
type reach struct {
	a      alphabet
	events map[int]bool
	pairs  map[int]bool
	edges  map[int]bool
}

func newReach(a alphabet) *reach {
	return &reach{a: a, events: map[int]bool{}, pairs: map[int]bool{}, edges: map[int]bool{}}
}

// merge adds a run's coverage and reports whether any of it was new.
func (c *reach) merge(p *probe) bool {
	grew := false
	for _, m := range []struct{ into, from map[int]bool }{{c.events, p.events}, {c.pairs, p.pairs}, {c.edges, p.edges}} {
		for k := range m.from { // set union: order does not matter
			if !m.into[k] {
				m.into[k] = true
				grew = true
			}
		}
	}
	return grew
}

// coverage reports c for people; known is the number of events the
// cluster can show and classes the fault classes drawn.
func (c *reach) coverage(known, classes, corpus int) Coverage {
	out := Coverage{EventsKnown: known, PairsKnown: known * classes, Edges: len(c.edges), Corpus: corpus}
	for ev := range c.events {
		out.Events = append(out.Events, c.a.names[ev])
	}
	n := contract.NumClasses
	for k := range c.pairs {
		out.Pairs = append(out.Pairs, c.a.names[k/n]+"×"+contract.FaultClass(k%n).String())
	}
	sort.Strings(out.Events)
	sort.Strings(out.Pairs)
	return out
}

var _ sim.LeanSink = (*probe)(nil) // deliveries never build a record for it
