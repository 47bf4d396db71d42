package checker

import (
	"time"

	"github.com/electsim/electsim/contract"
	"github.com/electsim/electsim/sim"
)

// faultSpan is one fault as the run suffered it: its class, where it acted
// and from when to when. A contract's exception is judged against these
// (docs/checkers.md, "Excuses"): a fault excuses a finding only if it acted
// on a node the finding involves, or on a link such a node used, while the
// finding lasted or shortly before.
type faultSpan struct {
	class contract.FaultClass
	// node is the node a per-node class hit, or the service that stopped
	// answering; sim.None for a fault of every node (a standing per-node
	// class) or of the network.
	node sim.NodeID
	// links are the directed links a network class acted on; nil with
	// node sim.None: every link.
	links []sim.Link
	// start is when it struck; end when it ended (sim.Never: it lasted to
	// the end of the run, or its effect never ends: a stepped wall clock
	// stays stepped, a lost disk stays lost).
	start, end sim.Time
	// ord is its 1-based ordinal among the run's faults, in trace order.
	ord int
	// durable, for a disk fault, is when the last write issued under it
	// became durable: the fault acts until then (closeAt).
	durable sim.Time
	// rateDev, for a clock-rate fault, is the largest |rate − 1| the
	// node's clock ran at during it (sim.Record.RatePPB): how far its
	// readings drift from real time per unit of real time.
	rateDev float64
}

// faultSpans follows the run's faults from the typed facts of its records
// (contract.ClassesOf, and the facts that end them: sim.RecResume,
// sim.FactLinksRestored, sim.FactClockExact, ...). It keeps one span per
// fault the run suffered, so its memory grows with the faults injected (a
// schedule's or nemesis's count, which the report lists), never with time or
// messages; the links used are an n×n matrix like the reachability one.
type faultSpans struct {
	spans []faultSpan
	// open per-node spans: (class, node) → index in spans, or -1.
	open [contract.NumClasses][]int
	// cutBy: a cut link → the index of the partition span that cut it;
	// left counts each partition span's links still cut.
	cutBy map[sim.Link]int
	left  map[int]int
	// linkOpen: a link (or every link: allLinks) → its open link and loss
	// spans.
	linkOpen map[sim.Link][]int
	used     usedLinks
	lost     lossDrops
	ord      int
	// lags are, per node, its latest lease write that succeeded carrying
	// a time older than its success (sim.FactLeaseWriteLag): one per node,
	// so memory grows with nodes, never with time.
	lags []writeLag
}

// writeLag is a lease write that landed lag after the time it carries.
type writeLag struct {
	at  sim.Time
	lag time.Duration
}

// allLinks keys the spans of a fault on every link.
var allLinks = sim.Link{From: sim.None, To: sim.None}

func newFaultSpans(standing []StandingFault) faultSpans {
	f := faultSpans{cutBy: map[sim.Link]int{}, left: map[int]int{}, linkOpen: map[sim.Link][]int{}}
	for _, sf := range standing {
		if sf.Class > 0 && int(sf.Class) < contract.NumClasses {
			f.add(faultSpan{class: sf.Class, node: sf.Node, start: 0, end: sim.Never})
		}
	}
	return f
}

func (f *faultSpans) add(s faultSpan) int {
	f.ord++
	s.ord = f.ord
	f.spans = append(f.spans, s)
	return len(f.spans) - 1
}

// openAt opens a span of a per-node class on node unless one is open.
func (f *faultSpans) openAt(cls contract.FaultClass, node sim.NodeID, t sim.Time) {
	s := f.open[cls]
	for int(node) >= len(s) {
		s = append(s, -1)
	}
	f.open[cls] = s
	if s[node] >= 0 {
		return
	}
	s[node] = f.add(faultSpan{class: cls, node: node, start: t, end: sim.Never})
}

// closeAt ends node's open span of cls, if any.
func (f *faultSpans) closeAt(cls contract.FaultClass, node sim.NodeID, t sim.Time) {
	s := f.open[cls]
	if node < 0 || int(node) >= len(s) || s[node] < 0 {
		return
	}
	sp := &f.spans[s[node]]
	sp.end = max(t, sp.durable)
	s[node] = -1
}

// instant adds a fault with no duration; lasting ones never end.
func (f *faultSpans) instant(cls contract.FaultClass, node sim.NodeID, t sim.Time, lasting bool) {
	end := t
	if lasting {
		end = sim.Never
	}
	f.add(faultSpan{class: cls, node: node, start: t, end: end})
}

// observe follows r.
func (f *faultSpans) observe(r *sim.Record) {
	t, node := r.At, r.Node
	switch r.Type {
	case sim.RecPause:
		f.openAt(contract.Pause, node, t)
	case sim.RecResume:
		f.closeAt(contract.Pause, node, t)
	case sim.RecCrash:
		f.closeAt(contract.Pause, node, t) // the pause ends with the process
		f.openAt(contract.Crash, node, t)
		if r.Fact == sim.FactServiceDown {
			f.openAt(contract.ServiceDown, node, t)
		}
	case sim.RecStart:
		if r.Restarted() {
			f.closeAt(contract.Crash, node, t)
			f.closeAt(contract.ServiceDown, node, t)
			f.instant(contract.Restart, node, t, false)
		}
		if r.Fact == sim.FactDiskLost {
			f.instant(contract.DiskLoss, node, t, true) // what it forgot stays forgotten
		}
	case sim.RecEffect:
		switch r.Fact {
		case sim.FactServiceDown:
			f.openAt(contract.ServiceDown, node, t)
		case sim.FactServiceUp:
			f.closeAt(contract.ServiceDown, node, t)
		case sim.FactLeaseReverted:
			f.instant(contract.DiskLoss, node, t, false) // the store's lost writes: their leases expire
		case sim.FactLeaseWriteLag:
			if node >= 0 {
				for int(node) >= len(f.lags) {
					f.lags = append(f.lags, writeLag{})
				}
				f.lags[node] = writeLag{at: t, lag: r.WriteLag()}
			}
		}
	case sim.RecFault:
		f.fault(r)
	}
}

// fault follows a RecFault.
func (f *faultSpans) fault(r *sim.Record) {
	t, node := r.At, r.Node
	switch r.Fact {
	case sim.FactLinksCut:
		if len(r.Links) == 0 {
			return // a partition that changed no link (they were cut already)
		}
		i := f.add(faultSpan{class: contract.Partition, node: sim.None, links: r.Links, start: t, end: sim.Never})
		for _, l := range r.Links {
			f.cutBy[l] = i
		}
		f.left[i] = len(r.Links)
	case sim.FactLinksRestored:
		for _, l := range r.Links {
			i, ok := f.cutBy[l]
			if !ok {
				continue
			}
			delete(f.cutBy, l)
			if f.left[i]--; f.left[i] == 0 {
				delete(f.left, i)
				f.spans[i].end = t
			}
		}
	case sim.FactLinkChanged, sim.FactLinkLossy, sim.FactLinkLossyChanged:
		cls, n := contract.ClassesOf(r)
		f.linkFault(r.Links, cls[:n], t)
	case sim.FactLinksReset:
		f.linkReset(r.Links, t)
	case sim.FactClockRate:
		f.openAt(contract.ClockRate, node, t)
		if s := f.open[contract.ClockRate]; node >= 0 && int(node) < len(s) && s[node] >= 0 {
			sp := &f.spans[s[node]]
			sp.rateDev = max(sp.rateDev, rateDeviation(r.RatePPB))
		}
	case sim.FactClockExact:
		f.closeAt(contract.ClockRate, node, t)
	case sim.FactClockStep:
		f.openAt(contract.ClockStep, node, t) // the clock stays stepped until stepped back
	case sim.FactClockUnstepped:
		f.closeAt(contract.ClockStep, node, t)
	case sim.FactDiskLatency:
		f.openAt(contract.Disk, node, t)
	case sim.FactDiskRestored:
		f.closeAt(contract.Disk, node, t)
	}
}

// persisted notes a disk write (RecPersist: B is when it becomes
// durable): a write issued under a disk fault holds the node's sends until
// it is durable, so the fault acts until then, past its own end.
func (f *faultSpans) persisted(r *sim.Record) {
	s := f.open[contract.Disk]
	if r.Node < 0 || int(r.Node) >= len(s) || s[r.Node] < 0 {
		return
	}
	sp := &f.spans[s[r.Node]]
	sp.durable = max(sp.durable, r.Persist().Durable)
}

// linkFault opens a span of each class on links (every link when nil)
// unless one of that class is open on them.
func (f *faultSpans) linkFault(links []sim.Link, cls []contract.FaultClass, t sim.Time) {
	key := allLinks
	if len(links) == 1 {
		key = links[0]
	}
	for _, c := range cls {
		dup := false
		for _, i := range f.linkOpen[key] {
			dup = dup || f.spans[i].class == c
		}
		if !dup {
			f.linkOpen[key] = append(f.linkOpen[key], f.add(faultSpan{class: c, node: sim.None, links: links, start: t, end: sim.Never}))
		}
	}
}

// linkReset ends the link and loss spans open on links (every link when
// nil: then every such span).
func (f *faultSpans) linkReset(links []sim.Link, t sim.Time) {
	end := func(key sim.Link) {
		for _, i := range f.linkOpen[key] {
			f.spans[i].end = t
		}
		delete(f.linkOpen, key)
	}
	if len(links) == 0 {
		keys := make([]sim.Link, 0, len(f.linkOpen))
		for k := range f.linkOpen { // collected, then ended: the order does not matter
			keys = append(keys, k)
		}
		for _, k := range keys {
			end(k)
		}
		return
	}
	for _, l := range links {
		end(l)
	}
}

// usedLinks records which directed links carried (or dropped) at least one
// message: a fault on a link no involved node used excuses nothing.
type usedLinks struct {
	n    int
	used []bool // from*n+to
}

// mark notes a message from one node to another.
func (u *usedLinks) mark(from, to sim.NodeID) {
	if from < 0 || to < 0 {
		return
	}
	if m := max(int(from), int(to)) + 1; m > u.n {
		u.grow(m)
	}
	u.used[int(from)*u.n+int(to)] = true
}

func (u *usedLinks) grow(n int) {
	n = max(n, 2*u.n)
	used := make([]bool, n*n)
	for f := 0; f < u.n; f++ {
		copy(used[f*n:f*n+u.n], u.used[f*u.n:(f+1)*u.n])
	}
	u.n, u.used = n, used
}

// either reports whether a message went either way between a and b.
func (u *usedLinks) either(a, b sim.NodeID) bool {
	if a < 0 || b < 0 || int(a) >= u.n || int(b) >= u.n {
		return false
	}
	return u.used[int(a)*u.n+int(b)] || u.used[int(b)*u.n+int(a)]
}

// lossDrops records when each node had a message lost to the network's
// loss (sim.DropLoss, to or from it), as intervals merged across gaps of
// at most lossGap: a lossy network (a loss fault, or a standing loss)
// reaches a finding only if it actually lost a message of a node the
// finding involves while the finding lasted or within the Aftermath
// before it. Memory: at most one interval per lossGap of simulated time
// per node that lost a message, and at most MaxLossIntervals per node;
// past that, the two oldest intervals merge (the gap between them then
// counts as lossy: weaker, never a missed excuse).
type lossDrops struct {
	per [][]lossSpan
}

type lossSpan struct{ from, to sim.Time }

// lossGap merges drops closer than this into one interval.
const lossGap = sim.Time(time.Second)

// MaxLossIntervals bounds the loss intervals kept per node.
const MaxLossIntervals = 4096

func (l *lossDrops) mark(n sim.NodeID, t sim.Time) {
	if n < 0 {
		return
	}
	for int(n) >= len(l.per) {
		l.per = append(l.per, nil)
	}
	s := l.per[n]
	if k := len(s); k > 0 && t-s[k-1].to <= lossGap {
		s[k-1].to = max(s[k-1].to, t)
		return
	}
	if len(s) >= MaxLossIntervals {
		s[1].from = s[0].from
		s = append(s[:0], s[1:]...)
	}
	l.per[n] = append(s, lossSpan{t, t})
}

// any reports whether one of nodes lost a message within [from, to].
func (l *lossDrops) any(nodes []sim.NodeID, from, to sim.Time) bool {
	for _, n := range nodes {
		if n < 0 || int(n) >= len(l.per) {
			continue
		}
		for _, s := range l.per[n] {
			if s.from <= to && s.to >= from {
				return true
			}
		}
	}
	return false
}

// rateDeviation is |rate − 1| of a clock running at ratePPB parts per
// billion: the real time a reading gains or loses per unit of real time
// (a stopped clock, rate 0, loses all of it, as a pause does).
func rateDeviation(ratePPB int64) float64 {
	d := float64(ratePPB)/float64(sim.RateOne) - 1
	if d < 0 {
		return -d
	}
	return d
}

// writeLagOf is the lag of the latest stale lease write of any of nodes
// that succeeded between from and to (zero if none).
func (f *faultSpans) writeLagOf(nodes []sim.NodeID, from, to sim.Time) time.Duration {
	var out time.Duration
	for _, n := range nodes {
		if n >= 0 && int(n) < len(f.lags) {
			if w := f.lags[n]; w.lag > 0 && w.at >= from && w.at <= to {
				out = max(out, w.lag)
			}
		}
	}
	return out
}
