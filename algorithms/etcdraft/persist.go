package etcdraft

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"go.etcd.io/raft/v3"
	pb "go.etcd.io/raft/v3/raftpb"
	"google.golang.org/protobuf/proto"
)

// Durable state layout (what etcd keeps in its WAL, minus snapshots, which
// the adapter never takes):
//
//	version byte (1)
//	uvarint len, HardState (protobuf)
//	uvarint count, then per entry: uvarint len, Entry (protobuf)
//
// Env.Persist replaces the whole durable state, so every write carries the
// full log; it holds one empty entry per elected leader, so it stays small.
const stateVersion = 1

var marshalOpts = proto.MarshalOptions{Deterministic: true}

// encodeState serialises the storage's HardState and log into n.buf.
func (n *Node) encodeState() []byte {
	hs, _, _ := n.storage.InitialState()
	buf := append(n.buf[:0], stateVersion)
	buf = appendProto(buf, hs)
	first, _ := n.storage.FirstIndex()
	last, _ := n.storage.LastIndex()
	var ents []*pb.Entry
	if last >= first {
		var err error
		ents, err = n.storage.Entries(first, last+1, math.MaxUint64)
		if err != nil {
			panic(fmt.Sprintf("etcdraft: %s reading its log [%d, %d]: %v", n.env.Name(), first, last, err))
		}
	}
	buf = binary.AppendUvarint(buf, uint64(len(ents)))
	for _, e := range ents {
		buf = appendProto(buf, e)
	}
	n.buf = buf
	return buf
}

func appendProto(buf []byte, m proto.Message) []byte {
	buf = binary.AppendUvarint(buf, uint64(marshalOpts.Size(m)))
	buf, err := marshalOpts.MarshalAppend(buf, m)
	if err != nil {
		panic("etcdraft: marshal: " + err.Error())
	}
	return buf
}

// decodeState parses what encodeState wrote.
func decodeState(b []byte) (*pb.HardState, []*pb.Entry, error) {
	if len(b) == 0 || b[0] != stateVersion {
		return nil, nil, errors.New("unknown state version")
	}
	b = b[1:]
	hs := &pb.HardState{}
	b, err := readProto(b, hs)
	if err != nil {
		return nil, nil, fmt.Errorf("hard state: %w", err)
	}
	count, k := binary.Uvarint(b)
	if k <= 0 || count > uint64(len(b)) {
		return nil, nil, errors.New("bad entry count")
	}
	b = b[k:]
	ents := make([]*pb.Entry, count)
	for i := range ents {
		ents[i] = &pb.Entry{}
		if b, err = readProto(b, ents[i]); err != nil {
			return nil, nil, fmt.Errorf("entry %d: %w", i, err)
		}
	}
	if len(b) != 0 {
		return nil, nil, errors.New("trailing bytes")
	}
	return hs, ents, nil
}

func readProto(b []byte, m proto.Message) ([]byte, error) {
	size, k := binary.Uvarint(b)
	if k <= 0 || size > uint64(len(b)-k) {
		return nil, errors.New("truncated")
	}
	if err := proto.Unmarshal(b[k:k+int(size)], m); err != nil {
		return nil, err
	}
	return b[k+int(size):], nil
}

// restore loads durable state into a fresh storage.
func (n *Node) restore(restored []byte) {
	hs, ents, err := decodeState(restored)
	if err != nil {
		panic(fmt.Sprintf("etcdraft: %s: corrupt durable state: %v", n.env.Name(), err))
	}
	if err := n.storage.Append(ents); err != nil {
		panic(fmt.Sprintf("etcdraft: %s: restoring log: %v", n.env.Name(), err))
	}
	if !raft.IsEmptyHardState(hs) {
		_ = n.storage.SetHardState(hs)
	}
}
