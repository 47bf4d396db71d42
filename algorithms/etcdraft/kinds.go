package etcdraft

import (
	pb "go.etcd.io/raft/v3/raftpb"

	"github.com/electsim/electsim/sim"
)

// Message kinds, one per raftpb.MessageType the election exchanges, so
// per-kind counts (Stats().Sent) show the protocol's message complexity.
var (
	// KindVote is raftpb.MsgVote (RequestVote).
	KindVote = sim.RegisterKind("etcdraft.MsgVote")
	// KindVoteResp is raftpb.MsgVoteResp.
	KindVoteResp = sim.RegisterKind("etcdraft.MsgVoteResp")
	// KindPreVote is raftpb.MsgPreVote (thesis §9.6).
	KindPreVote = sim.RegisterKind("etcdraft.MsgPreVote")
	// KindPreVoteResp is raftpb.MsgPreVoteResp.
	KindPreVoteResp = sim.RegisterKind("etcdraft.MsgPreVoteResp")
	// KindApp is raftpb.MsgApp (AppendEntries with entries or a commit index).
	KindApp = sim.RegisterKind("etcdraft.MsgApp")
	// KindAppResp is raftpb.MsgAppResp.
	KindAppResp = sim.RegisterKind("etcdraft.MsgAppResp")
	// KindHeartbeat is raftpb.MsgHeartbeat.
	KindHeartbeat = sim.RegisterKind("etcdraft.MsgHeartbeat")
	// KindHeartbeatResp is raftpb.MsgHeartbeatResp.
	KindHeartbeatResp = sim.RegisterKind("etcdraft.MsgHeartbeatResp")
	// KindOther carries every other message type (MsgSnap, MsgTimeoutNow, …),
	// which the adapter's workload does not normally produce.
	KindOther = sim.RegisterKind("etcdraft.Other")
)

// kindOf maps a library message type to its kind.
func kindOf(t pb.MessageType) sim.MsgKind {
	switch t {
	case pb.MsgVote:
		return KindVote
	case pb.MsgVoteResp:
		return KindVoteResp
	case pb.MsgPreVote:
		return KindPreVote
	case pb.MsgPreVoteResp:
		return KindPreVoteResp
	case pb.MsgApp:
		return KindApp
	case pb.MsgAppResp:
		return KindAppResp
	case pb.MsgHeartbeat:
		return KindHeartbeat
	case pb.MsgHeartbeatResp:
		return KindHeartbeatResp
	}
	return KindOther
}
