package sim

import (
	"fmt"
	"sync"
)

// NodeID identifies a node of a run: candidates and service nodes alike, in
// the order they were added (0, 1, …).
type NodeID int32

// None is the NodeID of nobody (no leader known, no sender).
const None NodeID = -1

// MsgKind identifies a message type across all algorithms and services. Kinds
// are registered once, by name, at package initialisation (RegisterKind), and
// traces and hashes use the name, so the numeric value never leaks into output.
type MsgKind uint16

var kindRegistry = struct {
	sync.Mutex
	names  []string
	fields []Fields
	host   []bool // RegisterHostKind: handled by the destination's HostAgent
}{names: []string{"none"}, fields: []Fields{{}}, host: []bool{false}}

// Fields names what a message kind carries in Message's generic slots, so
// the kind documents its payload once, in code, and step-level scripts and
// traces print it by name ("last_log_term=2", not "a=2"). An empty name is
// a slot the kind does not use.
type Fields struct {
	Term, Index, A, B, Flag string
}

// MaxKinds bounds the number of registered message kinds (per-kind counters
// are fixed-size arrays so counting never allocates).
const MaxKinds = 256

// RegisterKind registers a message kind by its qualified name, such as
// "raft.RequestVote", and returns its identifier. Call it from a package-level
// var initializer. Registering the same name twice returns the same kind.
// fields, if given, names the generic slots the kind uses (at most one).
func RegisterKind(name string, fields ...Fields) MsgKind {
	kindRegistry.Lock()
	defer kindRegistry.Unlock()
	var f Fields
	if len(fields) > 0 {
		f = fields[0]
	}
	for i, n := range kindRegistry.names {
		if n == name {
			if len(fields) > 0 {
				kindRegistry.fields[i] = f
			}
			return MsgKind(i)
		}
	}
	if len(kindRegistry.names) >= MaxKinds {
		panic(fmt.Sprintf("sim: more than %d message kinds registered", MaxKinds))
	}
	kindRegistry.names = append(kindRegistry.names, name)
	kindRegistry.fields = append(kindRegistry.fields, f)
	kindRegistry.host = append(kindRegistry.host, false)
	return MsgKind(len(kindRegistry.names) - 1)
}

// RegisterHostKind is RegisterKind for a kind handled by the destination
// host's agent (HostAgent) rather than by its process: a message of the
// kind crosses the same links as any other (cuts, loss, latency), but a
// destination that has a HostAgent gets it there even while its process
// is crashed or paused. A destination without one gets it as any message.
func RegisterHostKind(name string, fields ...Fields) MsgKind {
	k := RegisterKind(name, fields...)
	kindRegistry.Lock()
	kindRegistry.host[k] = true
	kindRegistry.Unlock()
	return k
}

// hostKinds reports, per kind, whether it was registered with
// RegisterHostKind.
func hostKinds() []bool {
	kindRegistry.Lock()
	defer kindRegistry.Unlock()
	return append([]bool(nil), kindRegistry.host...)
}

// Fields returns the names the kind gives its slots (zero if it gave none).
func (k MsgKind) Fields() Fields {
	kindRegistry.Lock()
	defer kindRegistry.Unlock()
	if int(k) < len(kindRegistry.fields) {
		return kindRegistry.fields[k]
	}
	return Fields{}
}

// String returns the kind's registered name.
func (k MsgKind) String() string {
	kindRegistry.Lock()
	defer kindRegistry.Unlock()
	if int(k) < len(kindRegistry.names) {
		return kindRegistry.names[k]
	}
	return fmt.Sprintf("kind(%d)", uint16(k))
}

// kindNames returns a snapshot of the registry, indexed by kind.
func kindNames() []string {
	kindRegistry.Lock()
	defer kindRegistry.Unlock()
	return append([]string(nil), kindRegistry.names...)
}

// Message is what nodes exchange. It is a plain value: the fixed fields cover
// election protocols without allocation; Body carries anything larger (the
// etcd raft adapter puts a raftpb.Message there). What Term, Epoch, Index and
// the other fields mean is up to the algorithm that sends the kind.
type Message struct {
	Kind  MsgKind
	From  NodeID
	To    NodeID
	Flag  bool  // e.g. vote granted, success
	Term  int64 // term or epoch
	Index int64 // e.g. last log index, candidate ID, revision
	A, B  int64 // algorithm-defined
	Body  any   // optional payload; must not be mutated after Send
}

// KindByName returns the registered kind with that name.
func KindByName(name string) (MsgKind, bool) {
	kindRegistry.Lock()
	defer kindRegistry.Unlock()
	for i, n := range kindRegistry.names {
		if n == name && i > 0 {
			return MsgKind(i), true
		}
	}
	return 0, false
}
