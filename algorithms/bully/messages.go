package bully

import (
	"encoding/binary"

	"github.com/electsim/electsim/sim"
)

// The bully message kinds. Every message carries the sender's epoch knowledge:
// Term is an epoch and Index the node that minted it (for COORDINATOR and
// HEARTBEAT: the tenure's epoch and the sender itself; for ELECTION and ANSWER:
// the highest epoch the sender knows and its minter).
var (
	epochFields = sim.Fields{Term: "epoch", Index: "epoch_minter"}
	// KindElection asks every higher-priority node whether it is alive.
	KindElection = sim.RegisterKind("bully.Election", epochFields)
	// KindAnswer is a higher node's reply to ELECTION ("OK, I take over").
	KindAnswer = sim.RegisterKind("bully.Answer", epochFields)
	// KindCoordinator announces a new coordinator to every lower node.
	KindCoordinator = sim.RegisterKind("bully.Coordinator", epochFields)
	// KindHeartbeat is the coordinator's periodic liveness signal (the
	// failure detector; not part of the paper's message set).
	KindHeartbeat = sim.RegisterKind("bully.Heartbeat", epochFields)
)

// stateLen is the size of the durable state: the highest known epoch
// (little-endian int64) and its minter (little-endian int32).
const stateLen = 12

// persist writes the epoch knowledge if PersistEpoch is on. The engine holds
// later sends until the write is durable, so a COORDINATOR never leaves before
// the epoch it announces is on disk.
func (n *Node) persist() {
	if !n.cfg.PersistEpoch {
		return
	}
	binary.LittleEndian.PutUint64(n.buf[:8], uint64(n.epoch))
	binary.LittleEndian.PutUint32(n.buf[8:], uint32(int32(n.owner)))
	n.env.Persist(n.buf[:])
}

// restore decodes what persist wrote; ok is false if there is nothing.
func restore(b []byte) (epoch int64, owner sim.NodeID, ok bool) {
	if len(b) != stateLen {
		return 0, sim.None, false
	}
	return int64(binary.LittleEndian.Uint64(b[:8])), sim.NodeID(int32(binary.LittleEndian.Uint32(b[8:]))), true
}
