package sim

import (
	"strconv"
	"time"
)

// Node is the contract every algorithm and service implements: a pure,
// single-threaded state machine. The engine calls exactly one method at a time
// and a node acts only through the Env it was given in Start. A node must not
// start goroutines, read the host's clock, sleep, or do I/O.
//
// Start is called when the node first starts and again on every restart after
// a crash, with the bytes it last persisted durably (nil if none). It must
// rebuild all volatile state from scratch — typically by assigning a fresh
// struct value — because a crashed process remembers nothing it did not
// persist.
type Node interface {
	// Start (re)initialises the node. restored is only valid during the call.
	Start(env Env, restored []byte)
	// OnMessage handles one delivered message.
	OnMessage(m Message)
	// OnTimer handles a fired timer set with Env.SetTimer.
	OnTimer(id TimerID, tag int)
}

// TimerNamer is implemented by nodes that name their timer tags, so traces
// say "raft.election" instead of "tag=1". Exports ask it for each timer
// record; the engine never does (naming costs nothing on the hot path).
type TimerNamer interface {
	// TimerName names the timer tag ("" if unknown).
	TimerName(tag int) string
}

// TimerName is the name node id gives its timer tag (TimerNamer), or
// "tag=<n>" when it gives none.
func (s *Sim) TimerName(id NodeID, tag int) string {
	if name, ok := s.timerName(id, tag); ok {
		return name
	}
	return "tag=" + strconv.Itoa(tag)
}

// timerName is the node's own name for the tag, if it gives one.
func (s *Sim) timerName(id NodeID, tag int) (string, bool) {
	if id >= 0 && int(id) < len(s.nodes) {
		if tn, ok := s.nodes[id].node.(TimerNamer); ok {
			if name := tn.TimerName(tag); name != "" {
				return name, true
			}
		}
	}
	return "", false
}

// TimerID identifies one armed timer. IDs are never reused while they could be
// confused: cancelling a fired or cancelled timer's ID is a harmless no-op.
type TimerID uint64

// Effect is a node-defined trace record: a service applying a write, a lease
// changing hands, a cron job starting. Name is a short constant such as
// "lease.acquired"; A, B and C are its numeric arguments.
type Effect struct {
	Name   string
	Detail string
	// Key names what the effect concerns, for code (a lease service's
	// key); Detail is for people.
	Key     string
	A, B, C int64
	// Fact is the effect's typed meaning when a checker must act on it
	// (FactLeaseExpired, FactRunStarted, ...); FactNone otherwise.
	Fact Fact
}

// LeadershipHook is told of a node's ActAsLeader and StopLeading calls,
// each right after the engine recorded it. A layer between the engine and
// an algorithm (the cron layer) uses it to watch the algorithm's
// leadership without wrapping its Env, which would put a forwarding call
// in front of every Send, timer and clock read.
type LeadershipHook interface {
	// Lead follows ActAsLeader(epoch, token).
	Lead(epoch, token int64)
	// StopLead follows every StopLeading(why), whether or not the node
	// was acting as leader.
	StopLead(why string)
}

// LeadershipHooker is implemented by the engine's Env: HookLeadership
// installs h for the current incarnation of the node (a restart clears it,
// so a layer hooks again from its Start). It returns false, installing
// nothing, if a hook is already installed; the layer then wraps the Env.
type LeadershipHooker interface {
	HookLeadership(h LeadershipHook) bool
}

// Env is a node's only window on the world. Every method is deterministic.
type Env interface {
	// ID is this node's identifier.
	ID() NodeID
	// Name is this node's display name, e.g. "n1" or "store".
	Name() string
	// Now reads the node's monotonic clock: time since the run started as
	// measured by this node's (possibly drifting) oscillator. It never jumps.
	Now() time.Duration
	// Wall reads the node's wall clock, which may be offset and stepped.
	Wall() time.Time
	// WallNanos is Wall as Unix nanoseconds.
	WallNanos() int64
	// Send transmits m to m.To; m.From is set by the engine. Sending after
	// Persist in the same or a later handler holds the message until the write
	// is durable.
	Send(m Message)
	// SetTimer arms a timer that fires after d of this node's monotonic time.
	SetTimer(d time.Duration, tag int) TimerID
	// ResetTimer re-arms an armed timer to fire d from now, keeping its ID and
	// tag. It returns false (and does nothing) if id is not armed.
	ResetTimer(id TimerID, d time.Duration) bool
	// CancelTimer disarms a timer. It returns false if id was not armed.
	CancelTimer(id TimerID) bool
	// Persist writes data as the node's durable state, replacing what was
	// there. The bytes are copied. The write takes the node's fsync latency;
	// a crash before it completes loses it.
	Persist(data []byte)
	// Rand is this node's private random stream.
	Rand() *Rand
	// ActAsLeader reports "I act as leader for epoch with fencing token".
	ActAsLeader(epoch, token int64)
	// StopLeading reports "I stopped acting as leader"; why is a short reason.
	StopLeading(why string)
	// BelieveLeader reports "I believe leader leads epoch" (None: no leader known).
	BelieveLeader(leader NodeID, epoch int64)
	// Effect records a node-defined effect in the trace.
	Effect(e Effect)
}
