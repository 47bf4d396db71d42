package raftelect

import "github.com/electsim/electsim/sim"

// The message payloads, with named fields. Each is carried in sim.Message's
// value fields (no allocation per message) by message and read back by its
// Of function; the kinds' sim.Fields name those slots after these fields,
// which TestPayloadsNameTheirFields checks.

// voteReq is the payload of RequestVote and PreVote (Figure 2, RequestVote
// arguments): the candidate's term (PreVote: the term it would campaign at,
// currentTerm+1) and its last log entry.
type voteReq struct {
	Term         int64
	LastLogIndex int64
	LastLogTerm  int64
}

func (p voteReq) message(kind sim.MsgKind, to sim.NodeID) sim.Message {
	return sim.Message{Kind: kind, To: to, Term: p.Term, Index: p.LastLogIndex, A: p.LastLogTerm}
}

func voteReqOf(m *sim.Message) voteReq {
	return voteReq{Term: m.Term, LastLogIndex: m.Index, LastLogTerm: m.A}
}

// voteResp is the payload of RequestVoteResp and PreVoteResp: the
// responder's term (a PreVote grant: the term asked for) and the answer.
type voteResp struct {
	Term        int64
	VoteGranted bool
}

func (p voteResp) message(kind sim.MsgKind, to sim.NodeID) sim.Message {
	return sim.Message{Kind: kind, To: to, Term: p.Term, Flag: p.VoteGranted}
}

func voteRespOf(m *sim.Message) voteResp { return voteResp{Term: m.Term, VoteGranted: m.Flag} }

// heartbeat is the payload of AppendEntries (no entries): the leader's term.
type heartbeat struct {
	Term int64
}

func (p heartbeat) message(to sim.NodeID) sim.Message {
	return sim.Message{Kind: KindAppendEntries, To: to, Term: p.Term}
}

// heartbeatResp is the payload of AppendEntriesResp.
type heartbeatResp struct {
	Term    int64
	Success bool
}

func (p heartbeatResp) message(to sim.NodeID) sim.Message {
	return sim.Message{Kind: KindAppendEntriesResp, To: to, Term: p.Term, Flag: p.Success}
}

func heartbeatRespOf(m *sim.Message) heartbeatResp {
	return heartbeatResp{Term: m.Term, Success: m.Flag}
}
