package raftelect

import "github.com/electsim/electsim/sim"

// Message kinds. Field use (sim.Message):
//
//	RequestVote, PreVote        Term = candidate's term (PreVote: the term it
//	                            would campaign at, currentTerm+1),
//	                            Index = lastLogIndex, A = lastLogTerm
//	RequestVoteResp, PreVoteResp Term, Flag = vote granted
//	AppendEntries               Term (heartbeat: no entries)
//	AppendEntriesResp           Term, Flag = success
var (
	// KindRequestVote asks for a vote (Figure 2, RequestVote RPC).
	KindRequestVote = sim.RegisterKind("raft.RequestVote")
	// KindRequestVoteResp answers a RequestVote.
	KindRequestVoteResp = sim.RegisterKind("raft.RequestVoteResp")
	// KindPreVote asks whether the receiver would vote (thesis §9.6).
	KindPreVote = sim.RegisterKind("raft.PreVote")
	// KindPreVoteResp answers a PreVote; a grant carries the requested term.
	KindPreVoteResp = sim.RegisterKind("raft.PreVoteResp")
	// KindAppendEntries is a leader's heartbeat (Figure 2, AppendEntries RPC
	// without entries).
	KindAppendEntries = sim.RegisterKind("raft.AppendEntries")
	// KindAppendEntriesResp answers a heartbeat; leaders count them for
	// CheckQuorum.
	KindAppendEntriesResp = sim.RegisterKind("raft.AppendEntriesResp")
)
