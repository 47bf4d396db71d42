package etcdraft

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	pb "go.etcd.io/raft/v3/raftpb"
	"google.golang.org/protobuf/proto"
)

// receive steps the kinds an election exchanges as the node's one reused
// message and gives the kinds raft.go keeps or forwards as received
// (stepFollower's MsgProp, MsgTransferLeader and MsgReadIndex) a fresh
// copy each time; either way the fields are the delivery's and the entry
// slice is the delivery's own (capacity = length), so the library can keep
// it and append to it without touching another delivery of the same body.
func TestReceiveReusesOnlyKindsTheLibraryDoesNotKeep(t *testing.T) {
	n := &Node{}
	entries := make([]*pb.Entry, 2, 8)
	entries[0], entries[1] = &pb.Entry{Term: proto.Uint64(3)}, &pb.Entry{Term: proto.Uint64(3)}
	body := func(typ pb.MessageType) *pb.Message {
		return &pb.Message{Type: typ.Enum(), To: proto.Uint64(2), From: proto.Uint64(1), Term: proto.Uint64(3),
			Index: proto.Uint64(7), Commit: proto.Uint64(5), Entries: entries}
	}
	check := func(m, got *pb.Message) {
		t.Helper()
		assert.Equal(t, m.GetType(), got.GetType())
		assert.Equal(t, m.GetTerm(), got.GetTerm())
		assert.Equal(t, m.GetIndex(), got.GetIndex())
		assert.Equal(t, m.GetCommit(), got.GetCommit())
		require.Len(t, got.Entries, 2)
		assert.Equal(t, 2, cap(got.Entries), "the library may append: no spare capacity")
		assert.NotSame(t, &m.Entries[0], &got.Entries[0], "entry slice shared with the body")
	}
	for _, typ := range []pb.MessageType{pb.MessageType_MsgApp, pb.MessageType_MsgAppResp, pb.MessageType_MsgHeartbeat,
		pb.MessageType_MsgHeartbeatResp, pb.MessageType_MsgVote, pb.MessageType_MsgVoteResp, pb.MessageType_MsgPreVote,
		pb.MessageType_MsgPreVoteResp} {
		m := body(typ)
		got := n.receive(m)
		assert.Same(t, &n.received, got, "%v: not the reused message", typ)
		check(m, got)
	}
	for _, typ := range []pb.MessageType{pb.MessageType_MsgProp, pb.MessageType_MsgTransferLeader, pb.MessageType_MsgReadIndex} {
		m := body(typ)
		a, b := n.receive(m), n.receive(m)
		assert.NotSame(t, &n.received, a, "%v: the library keeps it, so it must not be reused", typ)
		assert.NotSame(t, a, b, "%v: two deliveries share one copy", typ)
		check(m, a)
	}
}
