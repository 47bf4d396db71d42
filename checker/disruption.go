package checker

import (
	"fmt"
	"time"

	"github.com/electsim/electsim/contract"
	"github.com/electsim/electsim/sim"
)

// CheckDisruption is the disruption check: no leader is deposed by a term
// some node raised while that leader and a majority of the candidates had
// been up, running and connected to it both ways for the guarantee's
// Window (docs/checkers.md, "disruption").
// It runs only when the run's contract promises it (contract.Guarantee
// with Check "disruption"): PreVote with CheckQuorum's leader lease exists
// so that a node rejoining after a partition does not depose a healthy
// leader (Ongaro's thesis §9.6 and §6.2), and only a typed check tells a
// broken PreVote from a slower election.
const CheckDisruption = "disruption"

// stability follows, from typed records alone, when each candidate's
// process and each directed link last changed, so that a step-down can be
// judged against a quorum undisturbed for a window. Its size is n² like
// the reachability matrix, allocated only when the check runs.
type stability struct {
	window        sim.Time
	bumpState     int64 // the protocol state a term rise reports (sim.FactProtocolState's A)
	maxTerm       int64 // the highest term any node has risen to
	leading       map[sim.NodeID]int64
	pending       map[sim.NodeID]sim.NodeID // a leader → the node that raised the term against it
	n             int
	up, paused    []bool
	since         []sim.Time // per node: its last crash, start, pause or resume
	cut           []bool     // per directed link from*n+to
	linkSince     []sim.Time // per directed link: its last cut or restore
	disrupted     []disruption
	disruptedMore int
}

// disruption is one leader deposed with a healthy quorum.
type disruption struct {
	node  sim.NodeID
	epoch int64
	at    sim.Time
}

// maxDisruptions bounds the disruptions kept (the check counts the rest).
const maxDisruptions = 1000

func newStability(window time.Duration, bumpState int) *stability {
	return &stability{window: sim.Time(window), bumpState: int64(bumpState), leading: map[sim.NodeID]int64{}, pending: map[sim.NodeID]sim.NodeID{}}
}

func (s *stability) grow(n int) {
	if n <= s.n {
		return
	}
	up, paused, since := make([]bool, n), make([]bool, n), make([]sim.Time, n)
	copy(up, s.up)
	copy(paused, s.paused)
	copy(since, s.since)
	cut, linkSince := make([]bool, n*n), make([]sim.Time, n*n)
	for f := 0; f < s.n; f++ {
		copy(cut[f*n:f*n+s.n], s.cut[f*s.n:(f+1)*s.n])
		copy(linkSince[f*n:f*n+s.n], s.linkSince[f*s.n:(f+1)*s.n])
	}
	s.n, s.up, s.paused, s.since, s.cut, s.linkSince = n, up, paused, since, cut, linkSince
}

// observe follows r; candidates are the nodes a quorum is counted from.
func (s *stability) observe(r *sim.Record, candidates []sim.NodeID) {
	if m := max(int(r.Node), int(r.Peer)) + 1; m > s.n {
		s.grow(m)
	}
	t, id := r.At, r.Node
	switch r.Type {
	case sim.RecStart:
		s.up[id], s.paused[id], s.since[id] = true, false, t
	case sim.RecCrash:
		s.up[id], s.paused[id], s.since[id] = false, false, t
		delete(s.leading, id)
		delete(s.pending, id)
	case sim.RecPause:
		s.paused[id], s.since[id] = true, t
	case sim.RecResume:
		s.paused[id], s.since[id] = false, t
	case sim.RecFault:
		if r.Fact != sim.FactLinksCut && r.Fact != sim.FactLinksRestored {
			return
		}
		for _, l := range r.Links {
			if m := max(int(l.From), int(l.To)) + 1; m > s.n {
				s.grow(m)
			}
			if l.From >= 0 && l.To >= 0 && l.From != l.To {
				i := int(l.From)*s.n + int(l.To)
				s.cut[i], s.linkSince[i] = r.Fact == sim.FactLinksCut, t
			}
		}
	case sim.RecLead:
		s.leading[id] = r.Epoch
		delete(s.pending, id)
	case sim.RecEffect:
		if r.Fact != sim.FactProtocolState {
			return
		}
		st := r.ProtocolState()
		if st.State != s.bumpState || st.Epoch <= s.maxTerm {
			return
		}
		// A term no node had reached: a campaign. It disrupts a leader
		// that had a healthy quorum when it began (a campaign while no
		// leader is healthy is an ordinary election).
		s.maxTerm = st.Epoch
		for l := range s.leading { // any order: each leader judged alone
			if l != id && containsID(candidates, l) && s.healthyQuorum(l, t, candidates) {
				s.pending[l] = id
			}
		}
	case sim.RecStepDown:
		epoch, led := s.leading[id]
		delete(s.leading, id)
		_, raised := s.pending[id]
		delete(s.pending, id)
		if !led || !raised || r.Fact == sim.FactCrashed {
			return
		}
		if len(s.disrupted) < maxDisruptions {
			s.disrupted = append(s.disrupted, disruption{node: id, epoch: epoch, at: t})
		} else {
			s.disruptedMore++
		}
	}
}

// steady reports whether node id has been up and running since t-window.
func (s *stability) steady(id sim.NodeID, t sim.Time) bool {
	return s.up[id] && !s.paused[id] && s.since[id] <= t-s.window
}

// healthyQuorum reports whether leader and a majority of candidates
// (leader included) have been up, running and connected to the leader both
// ways, without a change, since t-window.
func (s *stability) healthyQuorum(leader sim.NodeID, t sim.Time, candidates []sim.NodeID) bool {
	if !s.steady(leader, t) {
		return false
	}
	ok := 0
	for _, m := range candidates {
		if m == leader {
			ok++
			continue
		}
		a, b := int(leader)*s.n+int(m), int(m)*s.n+int(leader)
		if s.steady(m, t) && !s.cut[a] && !s.cut[b] && s.linkSince[a] <= t-s.window && s.linkSince[b] <= t-s.window {
			ok++
		}
	}
	return ok >= len(candidates)/2+1
}

// checkDisruption reports the leaders deposed with a healthy quorum, when
// the contract promises none (else no check: it is not in the report).
func (c *checker) checkDisruption() (Check, bool) {
	if c.stab == nil {
		return Check{}, false
	}
	ch := Check{Name: CheckDisruption}
	for _, d := range c.stab.disrupted {
		v := Violation{Kind: CheckDisruption, At: d.at, End: d.at, Nodes: []string{c.in.name(d.node)}, NodeIDs: []sim.NodeID{d.node}, Epochs: []int64{d.epoch},
			Details: fmt.Sprintf("%s stopped leading at t=%v, deposed by a term another node raised while it and a majority of the candidates had been up, running and connected to it both ways for %v", c.in.name(d.node), d.at, time.Duration(c.stab.window))}
		if c.wants(&ch) {
			v.Explanation = c.story(c.context(d.at-c.stab.window, d.at, c.in.Candidates, nil), "leader deposed with a healthy quorum")
		}
		c.add(&ch, v)
	}
	ch.Count += c.stab.disruptedMore
	return c.finish(ch, "no leader was deposed while a majority stayed connected to it", "%d leader(s) deposed with a healthy quorum"), true
}

// stabilityFor returns the tracker the contract's disruption promise
// needs, nil without one.
func stabilityFor(ct contract.Contract) *stability {
	g, ok := ct.For(CheckDisruption)
	if !ok || g.Window <= 0 || g.TermState <= 0 {
		return nil
	}
	return newStability(g.Window, g.TermState-1)
}
