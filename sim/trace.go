package sim

import (
	"fmt"
	"math/bits"
	"time"
)

// RecordType says what a trace record describes.
type RecordType uint8

// The record types. Every delivery, drop, timer, fault, observation and effect
// of a run is one record; their sequence is the run's trace.
const (
	RecStart       RecordType = iota + 1 // a node started (A=1 on restart); Detail says whether state was restored
	RecDeliver                           // Peer's message of Kind reached Node (SentAt, Epoch=Term)
	RecDrop                              // a message from Peer to Node was lost (Reason)
	RecTimer                             // Node's timer fired (A=tag, B=timer id)
	RecPersist                           // Node issued a disk write (A=bytes, B=true completion time)
	RecPersistDone                       // Node's disk write became durable (A=bytes)
	RecCrash                             // Node crashed
	RecPause                             // Node's process was paused
	RecResume                            // Node's process resumed (A=buffered events)
	RecFault                             // a network, clock or other fault (Name, Detail; Fact and Links for network changes)
	RecLead                              // Node acts as leader for Epoch with fencing Token
	RecStepDown                          // Node stopped acting as leader (Detail: why, for people; Fact FactCrashed when a crash ended it)
	RecBelieve                           // Node believes Peer leads Epoch
	RecEffect                            // a node-defined effect (Name, Detail, A, B, C)
	RecEnd                               // the run ended (Detail: outcome)
	RecNote                              // an annotation from a driver such as the fault injector (Name, Detail); not hashed
)

var recordNames = [...]string{"", "start", "deliver", "drop", "timer", "persist", "persist_done",
	"crash", "pause", "resume", "fault", "lead", "step_down", "believe", "effect", "end", "note"}

// String returns the record type's name as used in JSON output.
func (t RecordType) String() string {
	if int(t) < len(recordNames) && t > 0 {
		return recordNames[t]
	}
	return fmt.Sprintf("record(%d)", uint8(t))
}

// DropReason says why a message was lost.
type DropReason uint8

// The reasons a message is lost.
const (
	DropNone              DropReason = iota
	DropLoss                         // the link's random drop probability
	DropPartitionAtSend              // the link was cut when the message was sent
	DropPartitionInFlight            // the link was cut when the message was due
	DropDestDown                     // the destination was crashed (or crashed and restarted) meanwhile
	DropSenderCrashed                // the sender crashed before its disk write completed
)

var dropNames = [...]string{"", "loss", "partition_at_send", "partition_in_flight", "dest_down", "sender_crashed"}

// String returns the reason's name as used in JSON output.
func (r DropReason) String() string {
	if int(r) < len(dropNames) {
		return dropNames[r]
	}
	return fmt.Sprintf("drop(%d)", uint8(r))
}

// Record is one trace record. Which fields are meaningful depends on Type (see
// the RecordType constants). Mono and Wall are the subject node's clock
// readings, set for observations, effects, lifecycle and fault records.
type Record struct {
	At     Time
	Type   RecordType
	Reason DropReason
	Kind   MsgKind
	Node   NodeID
	Peer   NodeID
	SentAt Time
	Epoch  int64
	Token  int64
	A, B   int64
	C      int64
	Mono   time.Duration
	Wall   int64 // Unix nanoseconds
	Name   string
	Detail string
	// Key is what an effect concerns, for code (Effect.Key; not hashed,
	// not exported: Detail carries it for people).
	Key string
	// Fact is the record's typed meaning for checkers (see Fact); Name and
	// Detail are for people only.
	Fact Fact
	// RatePPB, on a RecFault with FactClockRate or FactClockExact, is the
	// rate the node's clock now runs at, in parts per billion (RateOne:
	// exact). Not hashed: Detail carries it for people, and a trace hashes
	// as it did before the field existed.
	RatePPB int64
	// Links, on a network fault with FactLinksCut or FactLinksRestored, are
	// exactly the directed links whose state the fault changed. The slice
	// is never reused by the engine, so a sink may keep it.
	Links []Link
}

// Sink receives every trace record as it happens. The *Record is only valid
// during the call: a sink that keeps records must copy them.
type Sink interface {
	Record(r *Record)
}

// LeanSink is a Sink that needs only some fields of the hot records: the
// engine hands it each delivery and drop through Message (no Record is
// built for it) and never hands it timer records. Every other record still
// comes through Record. A run whose sinks are all lean (the streaming
// checker) costs almost nothing per message over a run with no sink.
type LeanSink interface {
	Sink
	// Message is a RecDeliver or RecDrop record's fields: the message of
	// kind from one node to another (to is the record's Node, from its
	// Peer), its term (Epoch), the record's true time and when it was sent.
	Message(t RecordType, why DropReason, kind MsgKind, to, from NodeID, term int64, at, sentAt Time)
}

// Recorder is a Sink that keeps a copy of every record in memory, for tests,
// checkers and exporters.
type Recorder struct {
	Records []Record
}

// Record implements Sink.
func (r *Recorder) Record(rec *Record) { r.Records = append(r.Records, *rec) }

// hasher is the trace hash: a 64-bit fingerprint folded over every record's
// fields, strings by content and message kinds by registered name, so it is
// identical across binaries, machines and GOMAXPROCS.
type hasher struct {
	h uint64
}

const (
	hk0 = 0xa0761d6478bd642f
	hk1 = 0xe7037ed1a0b428db
	hk2 = 0x8ebc6af09c88c6e3
	hk3 = 0x589965cc75374cc3
)

func mum(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}

func (h *hasher) words(a, b, c, d uint64) {
	h.h = mum(h.h^a^hk0, b^hk1) ^ mum(c^hk2, d^hk3)
}

func strHash(s string) uint64 {
	x := uint64(0xcbf29ce484222325)
	for i := 0; i < len(s); i++ {
		x ^= uint64(s[i])
		x *= 0x100000001b3
	}
	return x
}

func packHeader(t RecordType, why DropReason, node, peer NodeID) uint64 {
	return uint64(t) | uint64(why)<<8 | uint64(uint32(node))<<16 | uint64(uint16(peer))<<48
}

// The hash folds a record in up to four groups of four words. The first
// always: the header, the time, and the message kind, sent time, epoch, A and
// B folded in with odd multipliers (one round covers a delivery or a timer,
// the hot records). Token and C, the clock readings and the strings follow
// only when present. The fast paths below hash deliveries, drops and timers
// exactly as record hashes the equivalent Record.
const (
	foldEpoch = 0x9e3779b97f4a7c15
	foldA     = 0xc2b2ae3d27d4eb4f
	foldB     = 0x165667b19e3779f9
)

// message hashes a delivery or drop.
func (h *hasher) message(t RecordType, why DropReason, m *Message, at, sentAt Time, kindHash uint64) {
	h.words(packHeader(t, why, m.To, m.From), uint64(at), kindHash^uint64(m.Term)*foldEpoch, uint64(sentAt))
}

// timer hashes a timer record.
func (h *hasher) timer(node NodeID, at Time, tag int, id TimerID) {
	h.words(packHeader(RecTimer, DropNone, node, None), uint64(at), uint64(tag)*foldA, uint64(id)*foldB)
}

func (h *hasher) record(r *Record, kindHash uint64) {
	h.words(packHeader(r.Type, r.Reason, r.Node, r.Peer), uint64(r.At),
		kindHash^uint64(r.Epoch)*foldEpoch^uint64(r.A)*foldA, uint64(r.SentAt)^uint64(r.B)*foldB)
	if r.Token|r.C != 0 {
		h.words(uint64(r.Token), uint64(r.C), 0, 2)
	}
	if int64(r.Mono)|r.Wall != 0 {
		h.words(uint64(r.Mono), uint64(r.Wall), 0, 1)
	}
	if r.Name != "" || r.Detail != "" {
		h.words(strHash(r.Name), strHash(r.Detail), 2, 3)
	}
}
