package etcdraft

import (
	"fmt"

	"go.etcd.io/raft/v3"
	pb "go.etcd.io/raft/v3/raftpb"

	"github.com/electsim/electsim/sim"
)

// handleReady drains the library's Ready queue after a Tick or Step, in the
// order the Ready contract (raft node.go, "Ready") requires:
//  1. report role changes (observations);
//  2. append entries and the HardState to the in-memory storage and make them
//     durable through Env.Persist when MustSync says a fsync is needed (term,
//     vote or entries changed — a commit-index-only change is not synced, as
//     in etcd), so a leader's empty entry after election is durable too;
//  3. send the messages — the engine holds them until the write is durable,
//     and a crash before then loses both;
//  4. Advance, which steps the node's self-addressed responses (its own vote,
//     its own append acknowledgement) and may yield another Ready.
//
// Messages are sent in the order the library emits them. That order is
// deterministic: the library visits peers in sorted ID order (campaign sorts
// the voter IDs; bcastAppend/bcastHeartbeat use ProgressTracker.Visit, which
// sorts), and the remaining map iterations (quorum counting, QuorumActive)
// only produce order-independent results. The order also matters (a MsgApp
// before a heartbeat to the same peer), so the adapter does not re-sort.
func (n *Node) handleReady() {
	for n.rn.HasReady() {
		rd := n.rn.Ready()
		bumped := false
		if !raft.IsEmptyHardState(rd.HardState) {
			bumped = rd.GetTerm() > n.term
			n.term = rd.GetTerm()
		}
		if rd.SoftState != nil {
			n.state, n.lead = rd.RaftState, rd.Lead
		}
		n.observe()
		if bumped {
			n.reached(StateTermBumped)
		}

		if !raft.IsEmptySnap(rd.Snapshot) {
			// The adapter never compacts its log, so no leader sends MsgSnap.
			panic(fmt.Sprintf("etcdraft: %s: unexpected snapshot at index %d", n.env.Name(), rd.Snapshot.GetMetadata().GetIndex()))
		}
		if err := n.storage.Append(rd.Entries); err != nil {
			panic(fmt.Sprintf("etcdraft: %s: append: %v", n.env.Name(), err))
		}
		if !raft.IsEmptyHardState(rd.HardState) {
			_ = n.storage.SetHardState(rd.HardState)
		}
		if rd.MustSync && n.cfg.Persist {
			n.env.Persist(n.encodeState())
			n.reached(StatePersisted)
		}
		for _, m := range rd.Messages {
			n.send(m)
			if grantsVote(m) {
				n.reached(StateVoteGranted)
			}
		}
		// Committed entries are the leaders' empty entries: nothing to apply.
		n.rn.Advance(rd)
	}
}

// observe reports changes of role and belief. The fencing token is the term.
func (n *Node) observe() {
	isLeader := n.state == raft.StateLeader
	switch {
	case isLeader && !n.leading:
		n.leading, n.leaderTerm = true, n.term
		n.env.ActAsLeader(int64(n.term), int64(n.term))
	case !isLeader && n.leading:
		n.leading = false
		why := "check quorum: lost quorum"
		if n.term > n.leaderTerm {
			why = "higher term"
		}
		n.env.StopLeading(why)
	}
	lead := simID(n.lead)
	if lead != n.belief || (lead != sim.None && n.term != n.beliefTerm) {
		n.belief, n.beliefTerm = lead, n.term
		n.env.BelieveLeader(lead, int64(n.term))
	}
}

// send hands one library message to the network. The scalar fields are
// mirrored into sim.Message so traces and checkers need not decode the body.
func (n *Node) send(m *pb.Message) {
	to := m.GetTo()
	if to == raft.None || to == raftID(n.env.ID()) || to > uint64(sim.MaxNodes) {
		return // local targets only appear with AsyncStorageWrites, which is off
	}
	n.env.Send(sim.Message{
		Kind:  kindOf(m.GetType()),
		To:    sim.NodeID(to - 1),
		Term:  int64(m.GetTerm()),
		Index: int64(m.GetIndex()),
		Flag:  m.GetReject(),
		A:     int64(m.GetLogTerm()),
		B:     int64(m.GetCommit()),
		Body:  m,
	})
}

// receivedCopy gives each delivery its own top-level message and entry slice
// (capacity = length), as a real transport's decoding would: the network may
// deliver one body twice (duplication), and the library may keep the entry
// slice in its unstable log and later append to it. Entries themselves and
// the scalar field pointers are shared; the library treats both as immutable
// (it replaces pointers, never writes through them).
func receivedCopy(m *pb.Message) *pb.Message {
	c := &pb.Message{}
	copyReceived(c, m)
	return c
}

// copyReceived sets c to a received copy of m (receivedCopy).
func copyReceived(c, m *pb.Message) {
	c.Type, c.To, c.From, c.Term, c.LogTerm, c.Index = m.Type, m.To, m.From, m.Term, m.LogTerm, m.Index
	c.Commit, c.Vote, c.Snapshot, c.Reject, c.RejectHint, c.Context = m.Commit, m.Vote, m.Snapshot, m.Reject, m.RejectHint, m.Context
	c.Entries = nil
	if len(m.Entries) > 0 {
		c.Entries = make([]*pb.Entry, len(m.Entries))
		copy(c.Entries, m.Entries)
	}
}

// receive returns the received copy of m to step. For the kinds an
// election exchanges, the library reads the message during Step and keeps
// at most its entry slice (a fresh one per delivery), so one reused
// message serves every delivery: raft.go Step, stepLeader (MsgAppResp,
// MsgHeartbeatResp), stepCandidate (the vote responses), stepFollower and
// handleAppendEntries / handleHeartbeat build new messages for what they
// send. The kinds it may keep get their own copy: stepFollower forwards a
// MsgProp, MsgTransferLeader or MsgReadIndex by sending the received
// message itself (raft.send appends it to r.msgs), and a leader keeps a
// MsgReadIndex in pendingReadIndexMessages or readOnly.addRequest.
func (n *Node) receive(m *pb.Message) *pb.Message {
	switch m.GetType() {
	case pb.MsgApp, pb.MsgAppResp, pb.MsgHeartbeat, pb.MsgHeartbeatResp,
		pb.MsgVote, pb.MsgVoteResp, pb.MsgPreVote, pb.MsgPreVoteResp:
		copyReceived(&n.received, m)
		return &n.received
	}
	return receivedCopy(m)
}
