package checker

import (
	"time"

	"github.com/electsim/electsim/contract"
	"github.com/electsim/electsim/sim"
)

// Excuse is the fault that excused a finding (or, for a split_brain
// overlap a pause explains, stretched its bound): which fault of the run,
// of which class, where, and when (docs/checkers.md, "Excuses").
type Excuse struct {
	// Class is the fault's class.
	Class contract.FaultClass
	// Node is the node it hit (a service that stopped answering, for
	// service_down), sim.None for a fault of the network or of every node.
	Node sim.NodeID
	// NodeName is Node's name ("network" for a network fault, "every
	// node" for a standing per-node one).
	NodeName string
	// Ordinal is the fault's 1-based position among the run's faults, in
	// trace order (standing faults first).
	Ordinal int
	// Start is when it struck, End when it ended (sim.Never: it lasted to
	// the end of the run, or its effect lasts: a stepped clock, a lost
	// disk).
	Start, End sim.Time
	// Before is how long before the finding began the fault ended; zero
	// when it was still acting during the finding.
	Before time.Duration
	// Stretch, for a split_brain overlap within a bound stretched by
	// pauses and clock-rate faults, is how much they added to the bound (a
	// pause what it lasted, a rate fault D·|rate − 1|).
	Stretch time.Duration
}

// electionChecks are the checks whose findings concern the election alone:
// the fenced resource and the cron layer's services never excuse them.
var electionChecks = []string{CheckElectionSafety, CheckSplitBrain, CheckLeaderLinearizability, CheckLiveness, CheckDisruption}

// judge sets v's contract verdict under the guarantee on ch's check, if
// the contract has one.
func (c *checker) judge(check string, v *Violation) {
	if v.judged {
		return
	}
	g, ok := c.in.Contract.For(check)
	if !ok && check == CheckLeaderLinearizability {
		// The lock breaks exactly where tenures overlap: without a
		// guarantee of its own, it is held to split_brain's.
		g, ok = c.in.Contract.For(CheckSplitBrain)
		if ok && g.MaxOverlap > 0 {
			ok = false // its Duration is an operation's, not an overlap's: leave it to expect
		}
	}
	if !ok {
		v.Contract = contract.Uncovered
		return
	}
	if check == CheckSplitBrain && g.WriteLag && v.Duration > g.MaxOverlap {
		v.WriteLag = c.faults.writeLagOf(v.NodeIDs, v.At-sim.Time(g.Aftermath), v.End)
	}
	if check == CheckSplitBrain && g.MaxOverlap > 0 && v.Duration <= g.MaxOverlap+v.WriteLag {
		v.Contract = contract.WithinBound
		return
	}
	if check == CheckMissedSlots && v.End > c.tl.end {
		// The run ended before the slot's deadline: the cron layer was
		// not yet due to have applied it.
		v.Contract = contract.WithinBound
		return
	}
	void, stretch := c.excuses(check, g, v)
	switch {
	case void != nil:
		v.Contract = contract.Excused
		c.setExcuse(v, *void)
	case stretch != nil && check == CheckSplitBrain && v.Duration <= g.MaxOverlap+stretch.Stretch+v.WriteLag:
		v.Contract = contract.WithinBound
		c.setExcuse(v, *stretch)
	default:
		v.Contract = contract.Breach
		if stretch != nil {
			v.Excuse = stretch // the pauses did not explain all of it: kept for the explanation
		}
		if label, s := c.knownBug(check, g, v); s != nil {
			e := c.excuseOf(s, v)
			v.KnownBug, v.Excuse = label, &e
		}
	}
}

// knownBug finds the known bug of g's configured release (Guarantee.Known)
// a fault reaching v triggered, and that fault (the nearest, as an excuse
// is chosen); nil if none did.
func (c *checker) knownBug(check string, g contract.Guarantee, v *Violation) (string, *faultSpan) {
	if len(g.Known) == 0 {
		return "", nil
	}
	inv := c.involved(check, v)
	var best *faultSpan
	label := ""
	for i := range c.faults.spans {
		s := &c.faults.spans[i]
		l, ok := g.KnownBugOf(s.class)
		if !ok || !c.reaches(g, s, v, inv) {
			continue
		}
		if best == nil || closer(s, best) {
			best, label = s, l
		}
	}
	return label, best
}

func (c *checker) setExcuse(v *Violation, e Excuse) {
	v.Excuse = &e
	v.ExcusedBy, v.ExcusedAt = e.Class, e.Start
	v.ExcusedNode = e.NodeName
}

// excuses finds, among the run's faults of g's exception classes that
// reached v (excuse), the one that voids g for it, else the pauses that
// stretch its bound (contract.Guarantee.Stretches), summed into one
// Excuse named after the one that adds most. Either may be nil.
func (c *checker) excuses(check string, g contract.Guarantee, v *Violation) (void, stretch *Excuse) {
	inv := c.involved(check, v)
	var best *faultSpan
	var longest *faultSpan
	var added, longestAdds time.Duration
	for i := range c.faults.spans {
		s := &c.faults.spans[i]
		if !g.Excuses(s.class) || !c.reaches(g, s, v, inv) {
			continue
		}
		if g.Stretches(s.class) && check == CheckSplitBrain {
			d := time.Duration(min(s.end, v.End) - s.start)
			if s.class == contract.ClockRate {
				d = time.Duration(float64(d) * s.rateDev)
			}
			added += d
			if longest == nil || d > longestAdds {
				longest, longestAdds = s, d
			}
			continue
		}
		if best == nil || closer(s, best) {
			best = s
		}
	}
	if best != nil {
		e := c.excuseOf(best, v)
		return &e, nil
	}
	if longest != nil {
		e := c.excuseOf(longest, v)
		e.Stretch = added
		return nil, &e
	}
	return nil, nil
}

// closer reports whether a is nearer the finding than b: it ended later
// (one still acting is nearest), then it came first.
func closer(a, b *faultSpan) bool {
	if a.end != b.end {
		return a.end > b.end
	}
	return a.ord < b.ord
}

func (c *checker) excuseOf(s *faultSpan, v *Violation) Excuse {
	e := Excuse{Class: s.class, Node: s.node, Ordinal: s.ord, Start: s.start, End: s.end}
	switch {
	case s.node >= 0:
		e.NodeName = c.in.name(s.node)
	case s.class.PerNode():
		e.NodeName = "every node"
	default:
		e.NodeName = "network"
	}
	if s.end < v.At {
		e.Before = time.Duration(v.At - s.end)
	}
	return e
}

// reaches reports whether fault s reached finding v: it acted while v
// lasted or ended at most g.Aftermath before v began (at any time before v
// ended for a class g says lasts (Guarantee.Lasting): a forgotten vote stays
// forgotten), and it acted on a node v involves (inv), on a link such a
// node used, or, for a class g names in Anywhere, on any node.
func (c *checker) reaches(g contract.Guarantee, s *faultSpan, v *Violation, inv nodeSet) bool {
	anywhere := g.ExcusesAnywhere(s.class)
	if s.start > v.End {
		return false
	}
	lasting := g.Lasts(s.class)
	if !lasting && s.end != sim.Never && s.end.Add(g.Aftermath) < v.At {
		return false
	}
	if s.class == contract.Loss {
		// A lossy network reaches a finding only through a message it
		// actually lost, of a node the finding names (of an involved
		// node when it names none), while the finding lasted or within
		// the Aftermath before it (a lost answer makes a second leader
		// an answer timeout later).
		named := v.NodeIDs
		if len(named) == 0 {
			named = inv.members()
		}
		from := v.At - sim.Time(g.Aftermath)
		if lasting {
			from = 0
		}
		if !c.faults.lost.any(named, max(from, s.start), v.End) {
			return false
		}
	}
	switch {
	case s.node >= 0:
		return anywhere || inv.has(s.node)
	case s.class.PerNode() || s.links == nil:
		return true // every node, or every link
	}
	for _, l := range s.links {
		if (inv.has(l.From) || inv.has(l.To)) && c.faults.used.either(l.From, l.To) {
			return true
		}
	}
	return false
}

// nodeSet is a set of nodes, indexed by ID.
type nodeSet []bool

func (s nodeSet) has(id sim.NodeID) bool { return id >= 0 && int(id) < len(s) && s[id] }

func (s *nodeSet) add(ids ...sim.NodeID) {
	for _, id := range ids {
		if id < 0 {
			continue
		}
		for int(id) >= len(*s) {
			*s = append(*s, false)
		}
		(*s)[id] = true
	}
}

// involved is the set of nodes a finding of check involves: the nodes it
// names (every candidate when it names none) and the services they depend
// on: the lease stores (a coordination service) for an election finding;
// for a finding of the cron layer also every other service (the fenced
// resource, the queue, the execution store, the workers), in queue and
// Kubernetes modes every candidate too (a colocated worker), and for a
// missed slot its due recoverers. A disruption involves every candidate.
func (c *checker) involved(check string, v *Violation) nodeSet {
	inv := make(nodeSet, len(c.in.Names))
	inv.add(v.NodeIDs...)
	if len(v.NodeIDs) == 0 || check == CheckDisruption {
		// A disruption: a slow or paused follower makes the leader's
		// quorum check fail as surely as the leader's own fault (never a
		// partition: the check requires the quorum's links to have been
		// up, and the node whose rejoining disrupts is the one cut off).
		inv.add(c.in.Candidates...)
	}
	inv.add(c.in.LeaseStore...)
	if contains(electionChecks, check) {
		return inv
	}
	if check == CheckMissedSlots && len(v.NodeIDs) > 0 {
		// The slot's due recoverers: every node whose tenure began while
		// the slot could still be run, however short (a crash just after
		// it took over is why the slot was missed).
		for i := range c.tl.tenures {
			if t := &c.tl.tenures[i]; t.start >= v.At && t.start <= v.End {
				inv.add(t.node)
			}
		}
	}
	cand := make(nodeSet, len(c.in.Names))
	cand.add(c.in.Candidates...)
	for id := range c.in.Names {
		// In queue and Kubernetes modes (Input.Exec) a candidate may be a
		// worker too (colocated): whoever ran the slot is involved.
		if n := sim.NodeID(id); c.exec != nil || !cand.has(n) {
			inv.add(n)
		}
	}
	return inv
}

func containsID(ids []sim.NodeID, id sim.NodeID) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

// members lists the set's nodes in ID order.
func (s nodeSet) members() []sim.NodeID {
	var out []sim.NodeID
	for id, in := range s {
		if in {
			out = append(out, sim.NodeID(id))
		}
	}
	return out
}
