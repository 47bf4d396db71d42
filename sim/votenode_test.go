package sim_test

import (
	"encoding/binary"
	"time"

	"github.com/electsim/electsim/sim"
)

// voteNode is a minimal Raft-like vote protocol written against the node
// contract (terms, RequestVote, heartbeats, persisted term and vote). It is the
// workload of BenchmarkSimHour and of the determinism tests; the faithful Raft
// implementation lives in algorithms/raftelect.
var (
	kindVote     = sim.RegisterKind("test.RequestVote")
	kindVoteResp = sim.RegisterKind("test.RequestVoteResp")
	kindBeat     = sim.RegisterKind("test.Heartbeat")
)

const (
	tagElection = iota
	tagHeartbeat
)

type voteNode struct {
	peers       []sim.NodeID
	env         sim.Env
	term        int64
	votedFor    sim.NodeID
	leader      bool
	candidate   bool
	votes       int
	election    sim.TimerID
	heartbeat   sim.TimerID
	buf         [16]byte
	timeoutMin  time.Duration
	timeoutMax  time.Duration
	beatEvery   time.Duration
	persistence bool
}

func newVoteNode(peers []sim.NodeID) *voteNode {
	return &voteNode{peers: peers, timeoutMin: 150 * time.Millisecond, timeoutMax: 300 * time.Millisecond, beatEvery: 50 * time.Millisecond, persistence: true}
}

func (n *voteNode) Start(env sim.Env, restored []byte) {
	*n = voteNode{peers: n.peers, timeoutMin: n.timeoutMin, timeoutMax: n.timeoutMax, beatEvery: n.beatEvery, persistence: n.persistence, env: env, votedFor: sim.None}
	if len(restored) == 16 {
		n.term = int64(binary.LittleEndian.Uint64(restored))
		n.votedFor = sim.NodeID(int64(binary.LittleEndian.Uint64(restored[8:])))
	}
	n.election = env.SetTimer(n.timeout(), tagElection)
}

func (n *voteNode) timeout() time.Duration {
	return n.env.Rand().DurationRange(n.timeoutMin, n.timeoutMax)
}

func (n *voteNode) persist() {
	if !n.persistence {
		return
	}
	binary.LittleEndian.PutUint64(n.buf[:8], uint64(n.term))
	binary.LittleEndian.PutUint64(n.buf[8:], uint64(int64(n.votedFor)))
	n.env.Persist(n.buf[:])
}

func (n *voteNode) becomeFollower(term int64) {
	if n.leader {
		n.env.StopLeading("higher term")
		n.env.CancelTimer(n.heartbeat)
	}
	n.leader, n.candidate = false, false
	if term != n.term {
		n.term, n.votedFor = term, sim.None
		n.persist()
	}
}

func (n *voteNode) OnTimer(id sim.TimerID, tag int) {
	switch tag {
	case tagElection:
		n.term++
		n.votedFor = n.env.ID()
		n.candidate, n.votes = true, 1
		n.persist()
		for _, p := range n.peers {
			if p != n.env.ID() {
				n.env.Send(sim.Message{Kind: kindVote, To: p, Term: n.term})
			}
		}
		n.election = n.env.SetTimer(n.timeout(), tagElection)
	case tagHeartbeat:
		n.broadcastBeat()
		n.heartbeat = n.env.SetTimer(n.beatEvery, tagHeartbeat)
	}
}

func (n *voteNode) broadcastBeat() {
	for _, p := range n.peers {
		if p != n.env.ID() {
			n.env.Send(sim.Message{Kind: kindBeat, To: p, Term: n.term})
		}
	}
}

func (n *voteNode) OnMessage(m sim.Message) {
	if m.Term > n.term {
		n.becomeFollower(m.Term)
	}
	switch m.Kind {
	case kindVote:
		grant := m.Term == n.term && (n.votedFor == sim.None || n.votedFor == m.From)
		if grant {
			n.votedFor = m.From
			n.persist()
			n.env.ResetTimer(n.election, n.timeout())
		}
		n.env.Send(sim.Message{Kind: kindVoteResp, To: m.From, Term: n.term, Flag: grant})
	case kindVoteResp:
		if n.candidate && m.Term == n.term && m.Flag {
			n.votes++
			if n.votes*2 > len(n.peers) {
				n.candidate, n.leader = false, true
				n.env.CancelTimer(n.election)
				n.env.ActAsLeader(n.term, n.term)
				n.broadcastBeat()
				n.heartbeat = n.env.SetTimer(n.beatEvery, tagHeartbeat)
			}
		}
	case kindBeat:
		if m.Term == n.term {
			if n.candidate {
				n.candidate = false
			}
			n.env.ResetTimer(n.election, n.timeout())
		}
	}
}

// crashDriver crashes or restarts a random candidate every 0.5–2 s with at
// most maxDown down at once. It reuses one closure, so it allocates nothing.
type crashDriver struct {
	s       *sim.Sim
	r       *sim.Rand
	nodes   []sim.NodeID
	maxDown int
	tick    func()
}

func newCrashDriver(s *sim.Sim, nodes []sim.NodeID, maxDown int) *crashDriver {
	d := &crashDriver{s: s, r: s.Stream("faults"), nodes: nodes, maxDown: maxDown}
	d.tick = d.step
	s.After(d.r.DurationRange(500*time.Millisecond, 2*time.Second), d.tick)
	return d
}

func (d *crashDriver) step() {
	down := 0
	for _, id := range d.nodes {
		if !d.s.IsUp(id) {
			down++
		}
	}
	id := d.nodes[d.r.Intn(len(d.nodes))]
	switch {
	case !d.s.IsUp(id):
		d.s.Restart(id, true)
	case down < d.maxDown:
		d.s.Crash(id)
	default:
		for _, o := range d.nodes {
			if !d.s.IsUp(o) {
				d.s.Restart(o, true)
				break
			}
		}
	}
	d.s.After(d.r.DurationRange(500*time.Millisecond, 2*time.Second), d.tick)
}

// newVoteCluster builds the benchmark workload: n vote nodes, latency uniform
// 1–10 ms, 2% drop.
func newVoteCluster(seed uint64, n int) (*sim.Sim, []sim.NodeID) {
	s := sim.New(sim.Config{Seed: seed, Link: sim.LinkConfig{Latency: sim.Uniform(time.Millisecond, 10*time.Millisecond), Drop: 0.02}})
	ids := make([]sim.NodeID, n)
	for i := range ids {
		ids[i] = sim.NodeID(i)
	}
	for i := 0; i < n; i++ {
		s.AddNode(nodeName(i), newVoteNode(ids))
	}
	return s, ids
}

func nodeName(i int) string { return "n" + string(rune('1'+i)) }
