package checker

import (
	"time"

	"github.com/electsim/electsim/sim"
)

// recogSpan is a stretch of true time during which node was a recognised
// leader in tenure (an index into timeline.tenures).
type recogSpan struct {
	node     sim.NodeID
	tenure   int
	from, to sim.Time
}

type belief struct {
	peer  sim.NodeID
	epoch int64
}

// openFailover is a failover being measured.
type openFailover struct {
	f         Failover
	leader    sim.NodeID
	trigger   int64 // record ordinal of the fault
	newTenure int   // tenure index of the recognised leader, once completed
	epochs    []int64
	counts    kindCounts // election messages sent during it
}

// kindCounts counts messages by kind; a run uses a handful of kinds, so a
// short list beats a table of every possible kind.
type kindCounts []kindN

type kindN struct {
	kind sim.MsgKind
	n    int
}

func (kc *kindCounts) add(k sim.MsgKind) {
	for i := range *kc {
		if (*kc)[i].kind == k {
			(*kc)[i].n++
			return
		}
	}
	*kc = append(*kc, kindN{kind: k, n: 1})
}

// replayed is what the replay pass produces.
type replayed struct {
	spans      []recogSpan
	failovers  []Failover
	newTenure  []int        // per failover: the recognised tenure (-1 if not completed)
	counts     []kindCounts // per failover: election messages sent during it
	leaderless time.Duration
}

// replayer follows the trace's observations, lifecycle and network faults
// as the records stream by, to know, at every record, who is a recognised
// leader; it measures failovers as they happen. It keeps live state per
// node and what it reports (spans, failovers), never the records.
type replayer struct {
	in         *Input
	tl         *timeline
	lease      bool
	isCand     []bool
	isStore    []bool
	major      int
	leading    []int // node → open tenure index, -1
	bel        []belief
	up         []bool
	paused     []bool
	net        *reach
	storeDn    bool
	spanAt     []int // node → index of its open recognition span, -1
	out        replayed
	fo         *openFailover
	last       sim.Time
	nextTenure int
	healthy0   []bool // scratch: who was a healthy recognised leader before a fault
}

func newReplayer(in *Input, tl *timeline) *replayer {
	p := &replayer{in: in, tl: tl, lease: len(in.LeaseStore) > 0, major: len(in.Candidates)/2 + 1, net: newReach(0)}
	n := len(in.Names)
	for _, c := range in.Candidates {
		n = max(n, int(c)+1)
	}
	for _, s := range in.LeaseStore {
		n = max(n, int(s)+1)
	}
	p.grow(n)
	for _, c := range in.Candidates {
		if c >= 0 {
			p.isCand[c] = true
		}
	}
	for _, s := range in.LeaseStore {
		if s >= 0 {
			p.isStore[s] = true
		}
	}
	return p
}

// grow makes room for n nodes (IDs 0..n-1).
func (p *replayer) grow(n int) {
	for len(p.leading) < n {
		p.isCand = append(p.isCand, false)
		p.isStore = append(p.isStore, false)
		p.leading = append(p.leading, -1)
		p.bel = append(p.bel, belief{peer: sim.None})
		p.up = append(p.up, true)
		p.paused = append(p.paused, false)
		p.spanAt = append(p.spanAt, -1)
		p.healthy0 = append(p.healthy0, false)
	}
	p.net.grow(n)
	p.tl.grow(n)
}

// step follows one record that is not a message, timer or disk record;
// seq is its ordinal in the trace.
func (p *replayer) step(seq int64, r *sim.Record) {
	p.integrate(r.At)

	// A repeated belief (a follower hearing its leader's heartbeat) changes
	// nothing but the failover's detection: skip the rest, the hot path of
	// a run's non-message records.
	if r.Type == sim.RecBelieve && r.Node >= 0 && p.bel[r.Node] == (belief{peer: r.Peer, epoch: r.Epoch}) && p.up[r.Node] {
		if p.fo != nil {
			p.observe(seq, r)
		}
		return
	}

	// Faults that remove a recognised leader, judged on the state before
	// the record.
	removed, why, epoch := sim.None, "", int64(0)
	switch {
	case r.Type == sim.RecPause && p.recognised(r.Node):
		removed, why = r.Node, p.in.name(r.Node)+" paused"
	case r.Type == sim.RecStepDown && r.Fact == sim.FactCrashed && p.recognised(r.Node):
		removed, why = r.Node, p.in.name(r.Node)+" crashed"
	case r.Type == sim.RecFault && r.Fact == sim.FactResigning && r.Node >= 0 && p.recognised(r.Node):
		removed, why = r.Node, p.in.name(r.Node)+" shut down gracefully"
	}
	if removed != sim.None {
		epoch = p.tl.tenures[p.leading[removed]].epoch
	}
	netFault := isNetFault(r)
	storeFault := r.Type == sim.RecEffect && p.lease && p.isStoreNode(r.Node) && r.Fact == sim.FactServiceDown && !p.storeDn
	if netFault || storeFault {
		for x := range p.leading {
			p.healthy0[x] = p.recognised(sim.NodeID(x)) && p.healthy(sim.NodeID(x))
		}
	}

	p.apply(r)

	if netFault || storeFault {
		for x, was := range p.healthy0 {
			if !was || p.healthy(sim.NodeID(x)) || removed != sim.None {
				continue
			}
			removed, epoch = sim.NodeID(x), p.tl.tenures[p.leading[x]].epoch
			switch {
			case storeFault:
				why = "lease store unavailable"
			case p.lease:
				why = p.in.name(sim.NodeID(x)) + " cut off from the lease store"
			default:
				why = p.in.name(sim.NodeID(x)) + " cut off from a majority"
			}
		}
	}
	if p.fo == nil && removed != sim.None {
		p.fo = &openFailover{leader: removed, trigger: seq, newTenure: -1,
			f: Failover{Fault: why, FaultAt: r.At, Leader: p.in.name(removed), LeaderEpoch: epoch}}
	}

	p.updateSpans(r.At)
	if p.fo != nil {
		p.observe(seq, r)
	}
}

// finish closes what is open at the end of the trace.
func (p *replayer) finish() {
	end := p.tl.end
	if end > p.last {
		p.integrate(end)
	}
	for x, k := range p.spanAt {
		if k >= 0 {
			p.out.spans[k].to = end
			p.spanAt[x] = -1
		}
	}
	if p.fo != nil {
		p.closeFailover(-1)
	}
}

// integrate adds the time from the previous record to t to the leaderless
// totals, under the state before t's record.
func (p *replayer) integrate(t sim.Time) {
	if d := t.Sub(p.last); d > 0 {
		if !p.anyRecognised() {
			p.out.leaderless += d
		}
		if p.fo != nil && !p.covered() {
			p.fo.f.Leaderless += d
		}
	}
	p.last = t
}

// closeFailover records the open failover, ended by tenure (an index into
// the timeline's tenures; -1: the trace ended first).
func (p *replayer) closeFailover(tenure int) {
	p.out.failovers = append(p.out.failovers, p.fo.f)
	p.out.newTenure = append(p.out.newTenure, tenure)
	p.out.counts = append(p.out.counts, p.fo.counts)
	p.fo = nil
}

// apply updates the state for one record.
func (p *replayer) apply(r *sim.Record) {
	switch r.Type {
	case sim.RecLead:
		p.leading[r.Node] = p.nextTenure
		p.nextTenure++
	case sim.RecStepDown:
		p.leading[r.Node] = -1
	case sim.RecBelieve:
		p.bel[r.Node] = belief{peer: r.Peer, epoch: r.Epoch}
	case sim.RecCrash:
		p.leading[r.Node] = -1
		p.up[r.Node], p.paused[r.Node] = false, false
		p.bel[r.Node] = belief{peer: sim.None}
	case sim.RecStart:
		p.up[r.Node], p.paused[r.Node] = true, false
	case sim.RecPause:
		p.paused[r.Node] = true
	case sim.RecResume:
		p.paused[r.Node] = false
	case sim.RecFault:
		switch {
		case isNetFault(r):
			p.net.apply(r)
			p.grow(p.net.n)
		case r.Fact == sim.FactResigning && r.Node >= 0:
			// The node is shutting down: it stops leading and its process
			// exits at this instant; its RecStart brings it back.
			p.up[r.Node] = false
		}
	case sim.RecEffect:
		if p.isStoreNode(r.Node) {
			switch r.Fact {
			case sim.FactServiceDown:
				p.storeDn = true
			case sim.FactServiceUp:
				p.storeDn = false
			}
		}
	}
}

func (p *replayer) isStoreNode(id sim.NodeID) bool {
	return id >= 0 && int(id) < len(p.isStore) && p.isStore[id]
}

// recognised reports whether x is a recognised leader now: it acts as
// leader, is up and not paused, and either holds the lease (lease mode) or is
// followed by a majority of candidates (itself included) believing it leads
// its tenure's epoch.
func (p *replayer) recognised(x sim.NodeID) bool {
	if x < 0 || int(x) >= len(p.leading) {
		return false
	}
	k := p.leading[x]
	if k < 0 || !p.up[x] || p.paused[x] {
		return false
	}
	if p.lease {
		return true
	}
	ep := p.tl.tenures[k].epoch
	n := 0
	for _, c := range p.in.Candidates {
		if c == x || (p.bel[c].peer == x && p.bel[c].epoch == ep) {
			n++
		}
	}
	return n >= p.major
}

// healthy reports whether nothing currently removes x from leading: it is up
// and running, and connected both ways to the lease store (lease mode, with
// the store available) or to a majority of candidates.
func (p *replayer) healthy(x sim.NodeID) bool {
	if !p.up[x] || p.paused[x] {
		return false
	}
	if p.lease {
		if p.storeDn {
			return false
		}
		for _, s := range p.in.LeaseStore {
			if p.net.both(x, s) {
				return true
			}
		}
		return false
	}
	n := 0
	for _, c := range p.in.Candidates {
		if p.net.both(x, c) {
			n++
		}
	}
	return n >= p.major
}

func (p *replayer) anyRecognised() bool {
	for _, k := range p.spanAt {
		if k >= 0 {
			return true
		}
	}
	return false
}

// covered reports whether, during the open failover, some working node other
// than the removed leader acts as leader, or the removed leader recovered.
func (p *replayer) covered() bool {
	l := p.fo.leader
	for x, k := range p.leading {
		if k < 0 {
			continue
		}
		id := sim.NodeID(x)
		if id != l && p.up[x] && !p.paused[x] {
			return true
		}
		if id == l && p.healthy(l) {
			return true
		}
	}
	return false
}

// updateSpans opens and closes recognition spans after a record at t.
func (p *replayer) updateSpans(t sim.Time) {
	for x := range p.leading {
		id := sim.NodeID(x)
		rec := p.recognised(id)
		switch k := p.spanAt[x]; {
		case rec && k >= 0 && p.out.spans[k].tenure != p.leading[x]:
			p.out.spans[k].to = t
			p.spanAt[x] = len(p.out.spans)
			p.out.spans = append(p.out.spans, recogSpan{node: id, tenure: p.leading[x], from: t})
		case rec && k < 0:
			p.spanAt[x] = len(p.out.spans)
			p.out.spans = append(p.out.spans, recogSpan{node: id, tenure: p.leading[x], from: t})
		case !rec && k >= 0:
			p.out.spans[k].to = t
			p.spanAt[x] = -1
		}
	}
}

// observe measures the open failover at record i: detection, elections,
// and completion once an eligible leader is recognised.
func (p *replayer) observe(seq int64, r *sim.Record) {
	fo := p.fo
	l := fo.leader
	if seq != fo.trigger {
		if !fo.f.Detected {
			by := sim.None
			switch {
			case r.Type == sim.RecBelieve && r.Node != l && p.isCand[r.Node] && r.Peer != l:
				by = r.Node
			case r.Type == sim.RecStepDown && r.Node == l:
				by = l
			case r.Type == sim.RecLead && r.Node != l:
				by = r.Node
			case r.Type == sim.RecEffect && p.isStoreNode(r.Node) && r.Fact == sim.FactLeaseExpired && r.Lease().Holder == l:
				by = r.Node // the store's clock expired the removed holder's lease
			}
			if by != sim.None {
				fo.f.Detected, fo.f.DetectedAt, fo.f.DetectedBy = true, r.At, p.in.name(by)
				fo.f.Detection = r.At.Sub(fo.f.FaultAt)
			}
		}
		if r.Type == sim.RecLead {
			fo.f.LeadsDuring++
		}
		if (r.Type == sim.RecLead || r.Type == sim.RecBelieve) && r.Epoch > fo.f.LeaderEpoch {
			seen := false
			for _, e := range fo.epochs {
				if e == r.Epoch {
					seen = true
					break
				}
			}
			if !seen {
				fo.epochs = append(fo.epochs, r.Epoch)
			}
		}
	}
	for x := range p.leading {
		id := sim.NodeID(x)
		if !p.recognised(id) || (id == l && !p.healthy(l)) {
			continue
		}
		t := &p.tl.tenures[p.leading[x]]
		fo.f.Completed = true
		fo.f.NewLeader, fo.f.NewEpoch, fo.f.NewToken = p.in.name(id), t.epoch, t.token
		fo.f.LeaderAt, fo.f.Latency = r.At, r.At.Sub(fo.f.FaultAt)
		fo.f.ElectionsDuring = len(fo.epochs)
		p.closeFailover(p.leading[x])
		return
	}
	fo.f.ElectionsDuring = len(fo.epochs)
}
