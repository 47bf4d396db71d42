package raftelect

import (
	"encoding/binary"

	"github.com/electsim/electsim/sim"
)

// stateLen is the size of the durable state: currentTerm then votedFor, each
// a little-endian int64.
const stateLen = 16

// markDirty records that currentTerm or votedFor changed and must reach disk
// before the node sends anything (Figure 2: "updated on stable storage before
// responding to RPCs").
func (n *Node) markDirty() { n.dirty = true }

// flush persists the durable state if it changed. The engine holds every later
// send until the write is durable, so calling flush before sending is enough
// to order "persist, then respond" even with a slow disk.
func (n *Node) flush() {
	if n.dirty { // small enough to inline: every handler and send calls it
		n.persist()
	}
}

// persist writes the dirty state (flush's slow path).
func (n *Node) persist() {
	n.dirty = false
	if !n.cfg.Persist {
		return
	}
	binary.LittleEndian.PutUint64(n.buf[:8], uint64(n.term))
	binary.LittleEndian.PutUint64(n.buf[8:], uint64(int64(n.votedFor)))
	n.env.Persist(n.buf[:])
	n.reached(StatePersisted)
}

// restore decodes durable state written by flush; ok is false if there is none.
func restore(b []byte) (term int64, votedFor sim.NodeID, ok bool) {
	if len(b) != stateLen {
		return 0, sim.None, false
	}
	return int64(binary.LittleEndian.Uint64(b[:8])), sim.NodeID(int64(binary.LittleEndian.Uint64(b[8:]))), true
}
