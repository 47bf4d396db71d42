package ring

import (
	"encoding/binary"

	"github.com/electsim/electsim/sim"
)

// The ring message kinds. ELECTION and COORDINATOR travel hop by hop along the
// ring and every hop is acknowledged; ACKs are counted under their own kind so
// the election counts stay comparable with the papers.
//
// Fields of a ring message (ELECTION, COORDINATOR): Term is the election
// round; Index is the candidate (Chang–Roberts ELECTION), the initiator
// (collect-all ELECTION) or the elected leader (COORDINATOR); A is the
// sender's hop sequence number, echoed by the ACK; B packs the message's
// origin and the number of hops it has made (see pack); Body is the collected
// []int64 of IDs (collect-all ELECTION only).
var (
	hopFields = sim.Fields{Term: "round", Index: "id", A: "hop_seq", B: "origin_and_hops"}
	// KindElection carries a candidate ID (or the collected ID list).
	KindElection = sim.RegisterKind("ring.Election", hopFields)
	// KindCoordinator announces the elected leader around the ring (ELECTED).
	KindCoordinator = sim.RegisterKind("ring.Coordinator", hopFields)
	// KindAck acknowledges one ring hop (A = the hop's sequence number).
	KindAck = sim.RegisterKind("ring.Ack", sim.Fields{Term: "round", A: "hop_seq"})
	// KindHeartbeat is the leader's liveness signal, sent directly to every
	// other node (Term = the leader's round).
	KindHeartbeat = sim.RegisterKind("ring.Heartbeat", sim.Fields{Term: "round"})
)

// pack stores a ring message's origin (the node where its lap starts and
// ends) and how many hops it has made.
func pack(origin sim.NodeID, hops int) int64 { return int64(origin)<<32 | int64(uint32(hops)) }

func unpack(b int64) (origin sim.NodeID, hops int) {
	return sim.NodeID(int32(b >> 32)), int(uint32(b))
}

// persist writes the highest round seen if PersistEpoch is on.
func (n *Node) persist() {
	if !n.cfg.PersistEpoch {
		return
	}
	binary.LittleEndian.PutUint64(n.buf[:], uint64(n.round))
	n.env.Persist(n.buf[:])
}

// restore decodes what persist wrote.
func restore(b []byte) (round int64, ok bool) {
	if len(b) != 8 {
		return 0, false
	}
	return int64(binary.LittleEndian.Uint64(b)), true
}
