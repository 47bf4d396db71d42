package raftelect

import "github.com/electsim/electsim/sim"

// Message kinds and their fields (sim.Fields). RequestVote and PreVote
// carry the candidate's term (PreVote: the term it would campaign at,
// currentTerm+1) and its last log entry; the responses carry the
// responder's term and whether it granted; AppendEntries is a heartbeat (no
// entries).
var (
	voteFields = sim.Fields{Term: "term", Index: "last_log_index", A: "last_log_term"}
	respFields = sim.Fields{Term: "term", Flag: "vote_granted"}

	// KindRequestVote asks for a vote (Figure 2, RequestVote RPC).
	KindRequestVote = sim.RegisterKind("raft.RequestVote", voteFields)
	// KindRequestVoteResp answers a RequestVote.
	KindRequestVoteResp = sim.RegisterKind("raft.RequestVoteResp", respFields)
	// KindPreVote asks whether the receiver would vote (thesis §9.6).
	KindPreVote = sim.RegisterKind("raft.PreVote", voteFields)
	// KindPreVoteResp answers a PreVote; a grant carries the requested term.
	KindPreVoteResp = sim.RegisterKind("raft.PreVoteResp", respFields)
	// KindAppendEntries is a leader's heartbeat (Figure 2, AppendEntries RPC
	// without entries).
	KindAppendEntries = sim.RegisterKind("raft.AppendEntries", sim.Fields{Term: "term"})
	// KindAppendEntriesResp answers a heartbeat; leaders count them for
	// CheckQuorum.
	KindAppendEntriesResp = sim.RegisterKind("raft.AppendEntriesResp", sim.Fields{Term: "term", Flag: "success"})
)
