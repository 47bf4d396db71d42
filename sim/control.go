package sim

import (
	"fmt"
	"strings"
	"time"
)

// The methods in this file are the engine's fault primitives. Each records a
// trace record; the faults package composes them into scenarios.

// factFault records a fault with its typed fact and, for a network fault,
// the links it changed.
func (s *Sim) factFault(name, detail string, node NodeID, f Fact, links []Link) {
	s.rec = Record{At: s.now, Type: RecFault, Node: node, Peer: None, Name: name, Detail: detail, Fact: f, Links: links}
	if node >= 0 {
		n := s.nodes[node]
		s.rec.Mono, s.rec.Wall = time.Duration(n.mono()), n.wall()
	}
	s.emit()
}

// Note records an annotation (for example what a targeted fault resolved
// to) in the trace as a RecNote record, which sinks see but the trace hash
// ignores.
func (s *Sim) Note(name, detail string, node NodeID) {
	s.rec = Record{At: s.now, Type: RecNote, Node: node, Peer: None, Name: name, Detail: detail}
	if node >= 0 {
		n := s.nodes[node]
		s.rec.Mono, s.rec.Wall = time.Duration(n.mono()), n.wall()
	}
	s.emit()
}

// FaultResigning is the Name of the record Resigning writes.
const FaultResigning = "fault.resigning"

// Resigning records that the node starts a graceful shutdown now (a
// RecFault with FactResigning): from here on it is not a working leader,
// whatever it still reports, until its next RecStart.
func (s *Sim) Resigning(id NodeID, detail string) {
	s.factFault(FaultResigning, detail, id, FactResigning, nil)
}

// mustRate panics on a rate that would stop or reverse a clock.
func mustRate(ppb int64) {
	if ppb <= 0 {
		panic(fmt.Sprintf("sim: clock rate %d ppb must be positive", ppb))
	}
}

// ensureStarted starts the nodes before a lifecycle fault, so a fault
// applied before the first Run acts on running nodes.
func (s *Sim) ensureStarted() {
	if !s.started {
		s.start()
	}
}

// Pause stops the node's process: no handler runs; messages and expired timers
// wait and are handed over in arrival order on Resume. Its clocks keep running.
func (s *Sim) Pause(id NodeID) {
	s.ensureStarted()
	n := s.nodes[id]
	if !n.up || n.paused {
		return
	}
	n.paused = true
	n.stamp(RecPause)
	s.emit()
}

// Resume continues a paused node: everything that arrived or expired while it
// was paused is handed over now, in the order it came due.
func (s *Sim) Resume(id NodeID) {
	n := s.nodes[id]
	if !n.paused {
		return
	}
	n.paused = false
	r := n.stamp(RecResume)
	r.A = int64(len(n.pauseBuf))
	s.emit()
	for i := range n.pauseBuf {
		e := n.pauseBuf[i]
		s.handSeq++
		s.q.push(event{at: s.now, seq: s.handSeq, kind: e.kind, node: e.node, ref: e.ref})
	}
	n.pauseBuf = n.pauseBuf[:0]
}

// Crash kills the node's process: volatile state, timers, buffered and
// in-flight messages to it, and disk writes not yet complete are lost. Its
// durable state survives for Restart. A leading node stops acting as leader.
func (s *Sim) Crash(id NodeID) {
	s.ensureStarted()
	n := s.nodes[id]
	if !n.up {
		return
	}
	n.stopLeading("crash", FactCrashed)
	n.up = false
	n.paused = false
	n.inc++
	for i := range n.timers {
		if n.timers[i].state != timerFree {
			n.freeTimer(int32(i), &n.timers[i])
		}
	}
	for _, w := range n.pending {
		n.spare = append(n.spare, w.data)
	}
	n.pending = n.pending[:0]
	n.barrier = 0
	if r := n.stamp(RecCrash); n.service {
		// A service that crashed stopped answering: the fact says so, as
		// a store's outage does (contract.ClassesOf: crash and
		// service_down).
		r.Fact = FactServiceDown
	}
	s.emit()
	// Messages buffered by the pause die with the process; they are drops
	// like any other, so Sent = Delivered + Dropped - Duplicated still holds.
	for _, e := range n.pauseBuf {
		if e.kind == evLocal || e.kind == evDepart {
			slot := &s.msgs[e.ref]
			m, sent, why := slot.m, slot.sentAt, DropDestDown
			if e.kind == evDepart {
				sent, why = s.now, DropSenderCrashed
			}
			s.freeMsg(e.ref)
			s.drop(&m, sent, why)
		}
	}
	n.pauseBuf = n.pauseBuf[:0]
}

// Restart starts a crashed node again. With keepDisk false its durable state
// is wiped first (a replaced disk).
func (s *Sim) Restart(id NodeID, keepDisk bool) {
	s.ensureStarted()
	n := s.nodes[id]
	if n.up {
		return
	}
	if !keepDisk {
		n.durable = n.durable[:0]
		n.hasDisk = false
		n.diskLost = true
	}
	n.boot(true)
}

// SetMonoRate changes the rate of the node's monotonic clock (RateOne = exact).
// Pending timers are re-projected so they still fire at their local deadline.
func (s *Sim) SetMonoRate(id NodeID, ratePPB int64) {
	mustRate(ratePPB)
	n := s.nodes[id]
	n.clk.mono.rebase(s.now, ratePPB)
	n.reprojectTimers()
	s.rateFault("clock.mono_rate", fmt.Sprintf("%s monotonic clock rate %s", n.name, rateString(ratePPB)), id, ratePPB)
}

// SetWallRate changes the rate of the node's wall clock.
func (s *Sim) SetWallRate(id NodeID, ratePPB int64) {
	mustRate(ratePPB)
	n := s.nodes[id]
	n.clk.wall.rebase(s.now, ratePPB)
	s.rateFault("clock.wall_rate", fmt.Sprintf("%s wall clock rate %s", n.name, rateString(ratePPB)), id, ratePPB)
}

// SetRate changes both clocks' rates, as a fast or slow oscillator would.
func (s *Sim) SetRate(id NodeID, ratePPB int64) {
	mustRate(ratePPB)
	n := s.nodes[id]
	n.clk.wall.rebase(s.now, ratePPB)
	n.clk.mono.rebase(s.now, ratePPB)
	n.reprojectTimers()
	s.rateFault("clock.rate", fmt.Sprintf("%s clock rate %s", n.name, rateString(ratePPB)), id, ratePPB)
}

// StepWall jumps the node's wall clock by delta (negative = backwards), as an
// NTP step does. Monotonic time and timers are unaffected.
func (s *Sim) StepWall(id NodeID, delta time.Duration) {
	n := s.nodes[id]
	n.clk.wall.rebase(s.now, n.clk.wall.ratePPB)
	n.clk.wall.base += int64(delta)
	f := FactClockStep
	if s.started {
		n.stepped += delta
		if n.stepped == 0 {
			f = FactClockUnstepped
		}
	}
	s.factFault("clock.step", fmt.Sprintf("%s wall clock stepped %+v", n.name, delta), id, f, nil)
}

// rateFault records a change of node id's clock rate to ratePPB, with its
// typed rate (Record.RatePPB).
func (s *Sim) rateFault(name, detail string, id NodeID, ratePPB int64) {
	s.rec = Record{At: s.now, Type: RecFault, Node: id, Peer: None, Name: name, Detail: detail, Fact: rateFact(ratePPB), RatePPB: ratePPB}
	n := s.nodes[id]
	s.rec.Mono, s.rec.Wall = time.Duration(n.mono()), n.wall()
	s.emit()
}

// rateFact is the fact of a rate change: FactClockRate unless the clock is
// exact again (FactClockExact, the end of a rate fault).
func rateFact(ppb int64) Fact {
	if ppb == RateOne {
		return FactClockExact
	}
	return FactClockRate
}

func rateString(ppb int64) string {
	return fmt.Sprintf("%.6f", float64(ppb)/float64(RateOne))
}

// SetFsync changes the node's disk write latency.
func (s *Sim) SetFsync(id NodeID, d Dist) {
	if err := d.Validate(); err != nil {
		panic("sim: fsync latency: " + err.Error())
	}
	n := s.nodes[id]
	n.fsync = d
	f := FactDiskLatency
	switch {
	case !s.started:
		n.fsyncBase = d // configuration, not a fault
	case d == n.fsyncBase:
		f = FactDiskRestored
	}
	s.factFault("disk.latency", fmt.Sprintf("%s fsync %v", n.name, d), id, f, nil)
}

// FsyncLatency returns the node's current disk write latency distribution.
func (s *Sim) FsyncLatency(id NodeID) Dist { return s.nodes[id].fsync }

// --- network faults ---

func (s *Sim) names(ids []NodeID) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = s.nodes[id].name
	}
	return strings.Join(parts, ",")
}

// setUp sets the directed link from→to up or cut and, if its state
// changed, appends it to *changed.
func (s *Sim) setUp(from, to NodeID, up bool, changed *[]Link) {
	if from == to {
		return
	}
	l := s.net.at(from, to)
	if l.up != up {
		l.up = up
		*changed = append(*changed, Link{From: from, To: to})
	}
}

// netFault records a network fault with the exact links it changed: the
// typed fact a checker replays reachability from (Detail is for people).
func (s *Sim) netFault(name, detail string, node NodeID, cut bool, changed []Link) {
	f := FactLinksRestored
	if cut {
		f = FactLinksCut
	}
	s.factFault(name, detail, node, f, changed)
}

// Reachable reports whether messages from one node currently reach another.
func (s *Sim) Reachable(from, to NodeID) bool {
	return from == to || s.net.at(from, to).up
}

// Cut cuts the directed link from→to.
func (s *Sim) Cut(from, to NodeID) { s.CutLinks([]Link{{from, to}}) }

// Connect restores the directed link from→to.
func (s *Sim) Connect(from, to NodeID) { s.ConnectLinks([]Link{{from, to}}) }

// ConnectLinks restores the given directed links with one net.connect
// record, as reverting one partition of several does.
func (s *Sim) ConnectLinks(links []Link) { s.setLinks(links, true, "net.connect") }

// CutLinks cuts the given directed links with one net.cut record.
func (s *Sim) CutLinks(links []Link) { s.setLinks(links, false, "net.cut") }

// setLinks sets every listed link up or cut and records one fault.
func (s *Sim) setLinks(links []Link, up bool, name string) {
	parts := make([]string, len(links))
	for i, l := range links {
		parts[i] = s.nodes[l.From].name + " -> " + s.nodes[l.To].name
	}
	s.netFault(name, strings.Join(parts, ", "), None, !up, s.setAll(links, up))
}

// The link sets of the partition shapes. Each is the one definition of its
// shape, shared by the engine (which cuts it), the fault injector (which
// holds and later restores exactly these links) and the tests that check
// the checker's reachability against the engine's.

// CrossLinks lists the directed links a partition into groups cuts: both
// directions between every two nodes of different groups (never a node to
// itself).
func CrossLinks(groups [][]NodeID) []Link {
	var out []Link
	for gi, g := range groups {
		for gj, h := range groups {
			if gi == gj {
				continue
			}
			for _, a := range g {
				for _, b := range h {
					if a != b {
						out = append(out, Link{a, b})
					}
				}
			}
		}
	}
	return out
}

// IsolateLinks lists the links isolating id from the other n-1 nodes
// cuts: both directions between it and every other node.
func IsolateLinks(id NodeID, n int) []Link {
	var out []Link
	for i := 0; i < n; i++ {
		if y := NodeID(i); y != id {
			out = append(out, Link{id, y}, Link{y, id})
		}
	}
	return out
}

// OneWayLinks lists the links an asymmetric partition cuts: from every node
// in from to every node in to (not the reverse).
func OneWayLinks(from, to []NodeID) []Link {
	var out []Link
	for _, a := range from {
		for _, b := range to {
			if a != b {
				out = append(out, Link{a, b})
			}
		}
	}
	return out
}

// BridgeLinks lists the links a bridge partition cuts: both directions
// between left and right, except those of the bridge node.
func BridgeLinks(left, right []NodeID, bridge NodeID) []Link {
	var out []Link
	for _, a := range left {
		for _, b := range right {
			if a == bridge || b == bridge || a == b {
				continue
			}
			out = append(out, Link{a, b}, Link{b, a})
		}
	}
	return out
}

// setAll sets links up or cut and returns those whose state changed.
func (s *Sim) setAll(links []Link, up bool) []Link {
	var ch []Link
	for _, l := range links {
		s.setUp(l.From, l.To, up, &ch)
	}
	return ch
}

// Partition cuts every link (both directions) between nodes of different
// groups. Links of nodes in no group are left as they are.
func (s *Sim) Partition(groups ...[]NodeID) {
	ch := s.setAll(CrossLinks(groups), false)
	parts := make([]string, len(groups))
	for i, g := range groups {
		parts[i] = "{" + s.names(g) + "}"
	}
	s.netFault("net.partition", strings.Join(parts, " | "), None, true, ch)
}

// Isolate cuts every link to and from the node.
func (s *Sim) Isolate(id NodeID) {
	ch := s.setAll(IsolateLinks(id, len(s.nodes)), false)
	s.netFault("net.isolate", s.nodes[id].name, id, true, ch)
}

// OneWay cuts the links from every node in from to every node in to, leaving
// the reverse direction working (an asymmetric partition).
func (s *Sim) OneWay(from, to []NodeID) {
	ch := s.setAll(OneWayLinks(from, to), false)
	s.netFault("net.one_way", "{"+s.names(from)+"} -/-> {"+s.names(to)+"}", None, true, ch)
}

// Bridge splits left from right (both directions) while bridge keeps talking
// to both sides, as in Jepsen's bridge nemesis.
func (s *Sim) Bridge(left, right []NodeID, bridge NodeID) {
	ch := s.setAll(BridgeLinks(left, right, bridge), false)
	s.netFault("net.bridge", "{"+s.names(left)+"} | {"+s.names(right)+"} via "+s.nodes[bridge].name, None, true, ch)
}

// SplitMinority partitions nodes into a random minority of size
// (len(nodes)-1)/2 and the majority, drawing from r, and returns the minority.
func (s *Sim) SplitMinority(nodes []NodeID, r *Rand) (minority, majority []NodeID) {
	p := r.Perm(len(nodes))
	k := (len(nodes) - 1) / 2
	for i, j := range p {
		if i < k {
			minority = append(minority, nodes[j])
		} else {
			majority = append(majority, nodes[j])
		}
	}
	sortIDs(minority)
	sortIDs(majority)
	s.Partition(minority, majority)
	return minority, majority
}

func sortIDs(ids []NodeID) {
	for i := 1; i < len(ids); i++ {
		for j := i; j > 0 && ids[j] < ids[j-1]; j-- {
			ids[j], ids[j-1] = ids[j-1], ids[j]
		}
	}
}

// Heal restores every link.
func (s *Sim) Heal() {
	var ch []Link
	s.net.each(func(from, to NodeID, l *link) {
		if !l.up {
			l.up = true
			ch = append(ch, Link{from, to})
		}
	})
	s.netFault("net.heal", "all links restored", None, false, ch)
}

// SetLink configures the directed link from→to (latency, drop, duplicate, FIFO).
func (s *Sim) SetLink(from, to NodeID, c LinkConfig) {
	mustLink(c)
	old := s.Link(from, to)
	f := linkFact(old, c)
	if base, ok := s.net.startConfig(from, to, old, s.started); ok && base == c && old != c {
		f = FactLinksReset
	}
	s.net.apply(s.net.at(from, to), c)
	s.factFault("net.link", fmt.Sprintf("%s -> %s latency %v drop %g duplicate %g fifo %v", s.nodes[from].name, s.nodes[to].name, c.Latency, c.Drop, c.Duplicate, c.FIFO), None, f, []Link{{From: from, To: to}})
}

// linkFact is the typed fact of a link changing from old to c.
func linkFact(old, c LinkConfig) Fact {
	return linkChangeFact(old.Latency != c.Latency || old.FIFO != c.FIFO, c.Drop > 0 || c.Duplicate > 0)
}

// linkChangeFact is the fact of a link change: whether its latency or
// ordering changed, and whether it now loses or duplicates messages.
func linkChangeFact(changed, lossy bool) Fact {
	switch {
	case changed && lossy:
		return FactLinkLossyChanged
	case changed:
		return FactLinkChanged
	case lossy:
		return FactLinkLossy
	}
	return FactNone // a lossless link at the same latency: no fault
}

// SetAllLinks configures every link, replacing per-link overrides.
func (s *Sim) SetAllLinks(c LinkConfig) {
	mustLink(c)
	changed := false // any link's latency or ordering
	s.net.each(func(from, to NodeID, _ *link) {
		old := s.Link(from, to)
		changed = changed || old.Latency != c.Latency || old.FIFO != c.FIFO
	})
	f := linkChangeFact(changed, c.Drop > 0 || c.Duplicate > 0)
	if s.started {
		s.net.noteStart(s.Link)
		if s.net.backToStart(c) {
			f = FactLinksReset
		}
	}
	s.net.def = c
	s.net.each(func(_, _ NodeID, l *link) { s.net.apply(l, c) })
	s.factFault("net.links", fmt.Sprintf("all links latency %v drop %g duplicate %g fifo %v", c.Latency, c.Drop, c.Duplicate, c.FIFO), None, f, nil)
}

// DefaultLink returns the configuration a new link gets: Config.Link, or
// the last SetAllLinks.
func (s *Sim) DefaultLink() LinkConfig { return s.net.def }

// Link returns the current configuration of the directed link from→to.
func (s *Sim) Link(from, to NodeID) LinkConfig {
	l := s.net.at(from, to)
	return LinkConfig{Latency: l.latency, Drop: probOf(l.dropThresh), Duplicate: probOf(l.dupThresh), FIFO: l.fifo}
}

func probOf(th uint64) float64 {
	if th == ^uint64(0) {
		return 1
	}
	return float64(th) / (1 << 64)
}
