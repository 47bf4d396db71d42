package lease

import (
	"fmt"
	"time"

	"github.com/electsim/electsim/sim"
)

// Record is one named lease record in the store. Which fields a flavour uses:
// k8s writes Holder, HolderIdentity, AcquireTimeWallNs, RenewTimeWallNs,
// LeaseDurationNs and Transitions (client-go's LeaderElectionRecord); ttl uses
// Holder and ExpiresAtStoreWallNs (or ExpiresAtStoreMonoNs); walltime uses Holder, LockedAtWallNs and
// LockUntilWallNs (ShedLock's locked_by, locked_at, lock_until). The store sets
// Key, Revision and, for ttl and walltime acquisitions, Token.
type Record struct {
	// Key names the record.
	Key string
	// Holder is the holding candidate, sim.None when the record is free.
	Holder sim.NodeID
	// HolderIdentity is the holder's identity string ("" when free).
	HolderIdentity string
	// AcquireTimeWallNs and RenewTimeWallNs are Unix nanoseconds read from
	// the writing client's wall clock (k8s acquireTime and renewTime).
	AcquireTimeWallNs int64
	RenewTimeWallNs   int64
	// LeaseDurationNs is the lease duration the holder advertises (k8s
	// leaseDurationSeconds, kept in whole seconds as client-go writes it).
	LeaseDurationNs int64
	// Transitions counts leader changes (k8s leaderTransitions).
	Transitions int64
	// Token is the fencing token of the current tenure: the INCR counter
	// value for ttl, the acquiring revision for walltime, Transitions for k8s.
	Token int64
	// Revision is the store-wide revision of the record's last write
	// (resourceVersion); every write bumps the store's revision.
	Revision int64
	// ExpiresAtStoreWallNs is when the store's wall clock expires the record
	// (ttl flavour with ExpiryWall, as Redis does); 0 means no wall expiry.
	ExpiresAtStoreWallNs int64 `json:",omitempty"`
	// ExpiresAtStoreMonoNs is when the store's monotonic clock expires the
	// record (ttl flavour with ExpiryMonotonic); 0 means no monotonic expiry.
	ExpiresAtStoreMonoNs int64
	// LockedAtWallNs and LockUntilWallNs are ShedLock's locked_at and
	// lock_until, Unix nanoseconds from the locking client's wall clock.
	LockedAtWallNs  int64
	LockUntilWallNs int64
}

// ExpiredAt reports whether the record's TTL has run out at the store's
// clock readings monoNs (monotonic) and wallNs (Unix nanoseconds).
func (r *Record) ExpiredAt(monoNs, wallNs int64) bool {
	return r.ExpiresAtStoreMonoNs != 0 && r.ExpiresAtStoreMonoNs <= monoNs ||
		r.ExpiresAtStoreWallNs != 0 && r.ExpiresAtStoreWallNs <= wallNs
}

// hasTTL reports whether the record expires by either clock.
func (r *Record) hasTTL() bool { return r.ExpiresAtStoreMonoNs != 0 || r.ExpiresAtStoreWallNs != 0 }

// ExpiryClock names the store clock that judges a TTL key's expiry.
type ExpiryClock string

// The expiry clocks (Config.ExpiryClock, Request.ExpiryClock).
const (
	// ExpiryWall judges TTLs by the store's wall clock, as Redis does:
	// SET ... PX stores the absolute expiry now+ms from the server's cached
	// wall-clock time, and keyIsExpired (src/db.c) compares it with the
	// same clock (commandTimeSnapshot, from gettimeofday via ustime()). A
	// wall-clock step on the Redis host expires keys early or late.
	ExpiryWall ExpiryClock = "wall"
	// ExpiryMonotonic judges TTLs by the store's monotonic clock, as lease
	// services built on monotonic time do (etcd's lessor); a wall-clock
	// step changes nothing.
	ExpiryMonotonic ExpiryClock = "monotonic"
)

// Op is a store operation.
type Op uint8

// The store's operations. Each is applied atomically when the request is
// delivered, one message at a time, so the store is linearizable.
const (
	// OpGet reads a record (k8s Get).
	OpGet Op = iota + 1
	// OpCreate inserts Request.Rec if the key is absent (k8s Create).
	OpCreate
	// OpUpdate replaces the record with Request.Rec if its revision equals
	// Request.Revision (k8s Update with resourceVersion: optimistic
	// concurrency).
	OpUpdate
	// OpSetNX sets the key to Request.Holder if absent, expiring after
	// Request.TTL of the store clock Request.ExpiryClock names (Redis SET
	// key id NX PX ttl: the wall clock);
	// with Request.FenceKey it also INCRs that counter atomically and uses the
	// result as the record's Token (a Lua script).
	OpSetNX
	// OpCheckRenew resets the TTL if the key is held by Request.Holder (Lua:
	// if GET == id then PEXPIRE); with Request.SetIfAbsent an absent key is
	// set to the requester (go-redsync's touchWithSetNXScript).
	OpCheckRenew
	// OpRelease deletes the key if it is held by Request.Holder (Lua: if GET
	// == id then DEL).
	OpRelease
	// OpIncr increments the counter Request.Key and returns it (Redis INCR).
	OpIncr
	// OpLock is ShedLock's lock: insert the row, or take it over if
	// lock_until <= Request.NowWallNs (the client's wall clock), setting
	// lock_until = Request.UntilWallNs and locked_at = NowWallNs.
	OpLock
	// OpExtend is ShedLock's extend: set lock_until = UntilWallNs if the row
	// is locked by Request.Holder and lock_until > NowWallNs.
	OpExtend
	// OpUnlock is ShedLock's unlock: set lock_until = UntilWallNs on the
	// row named Key, whoever holds it — "UPDATE shedlock SET lock_until =
	// :unlockTime WHERE name = :name" (SqlStatementsSource.getUnlockStatement
	// before ShedLock 7.0.0; the Mongo, Cassandra, Neo4j, Couchbase, ArangoDB
	// and DynamoDB providers still) — or, with Request.CheckLockedBy, only
	// if the row is locked by Request.Holder ("AND locked_by = :lockedBy",
	// the SQL providers from 7.0.0, jOOQ, Ignite).
	OpUnlock
	numOps
)

var opNames = [numOps]string{"", "Get", "Create", "Update", "SetNX", "CheckRenew", "Release", "Incr", "Lock", "Extend", "Unlock"}

// String names the operation.
func (o Op) String() string {
	if o < numOps {
		return opNames[o]
	}
	return "Op?"
}

// Message kinds: one request kind per operation (so per-kind message counts
// show the protocol's mix) and one reply kind.
var (
	opKinds   [numOps]sim.MsgKind
	KindReply = sim.RegisterKind("lease.Reply", sim.Fields{Index: "request_id"})
)

func init() {
	for o := OpGet; o < numOps; o++ {
		opKinds[o] = sim.RegisterKind("lease."+opNames[o], sim.Fields{Term: "revision", Index: "request_id"})
	}
}

// KindOf returns the message kind of requests for op.
func KindOf(op Op) sim.MsgKind { return opKinds[op] }

// Request is a store operation, carried as a *Request in Message.Body. A
// request must not be changed after it is sent.
type Request struct {
	// ID is chosen by the client and echoed in the reply.
	ID int64
	// Op is the operation.
	Op Op
	// Key names the record (or counter, for OpIncr).
	Key string
	// Holder and Identity name the requesting candidate (SetNX, CheckRenew,
	// Release, Lock, Extend, Unlock).
	Holder   sim.NodeID
	Identity string
	// Rec is the record to write (Create, Update).
	Rec Record
	// Revision is the expected revision (Update).
	Revision int64
	// TTL is the key's time to live by the store's clock (SetNX, CheckRenew).
	TTL time.Duration
	// ExpiryClock is the store clock that judges TTL (SetNX, CheckRenew);
	// "" means ExpiryWall (Redis).
	ExpiryClock ExpiryClock
	// SetIfAbsent makes CheckRenew set an absent key to the requester, as
	// go-redsync's WithSetNXOnExtend touch script does ("elseif SET key
	// value PX ttl NX then return 1").
	SetIfAbsent bool
	// FenceKey, if set, names a counter SetNX increments atomically on
	// success; the result becomes the record's Token.
	FenceKey string
	// NowWallNs and UntilWallNs are the client's wall-clock "now" and the new
	// lock_until (Lock, Extend, Unlock).
	NowWallNs   int64
	UntilWallNs int64
	// StoreTime makes Lock, Extend and Unlock use the store's wall clock
	// instead of the client's (ShedLock's usingDbTime()): "now" is the
	// store's, Lock and Extend set lock_until = now + AtMostFor, and Unlock
	// sets lock_until = max(now, locked_at + AtLeastFor).
	StoreTime  bool
	AtMostFor  time.Duration
	AtLeastFor time.Duration
	// CheckLockedBy makes Unlock apply only to a row locked by Holder
	// (ShedLock 7's "AND locked_by = :lockedBy"). false, the zero value,
	// is the unconditional unlock by name of ShedLock before 7.0.0: a
	// holder whose lock expired frees its successor's.
	CheckLockedBy bool
}

// Err says why a store operation did not apply.
type Err uint8

// The store's error codes.
const (
	ErrNone      Err = iota
	ErrNotFound      // no such record
	ErrConflict      // revision mismatch (Update)
	ErrExists        // key already present (Create, SetNX)
	ErrNotHolder     // held by someone else or absent (CheckRenew, Release, Extend, Unlock)
	ErrHeld          // ShedLock lock not yet expired by the client's clock (Lock)
)

var errNames = [...]string{"ok", "not_found", "conflict", "exists", "not_holder", "held"}

// String names the error.
func (e Err) String() string {
	if int(e) < len(errNames) {
		return errNames[e]
	}
	return "err?"
}

// Reply is the store's answer, carried as a *Reply in Message.Body. The
// reply message also carries ID in Index, OK in Flag, Rec.Revision in Term
// and Value in A, so a trace shows them.
type Reply struct {
	// ID echoes Request.ID.
	ID int64
	// Op echoes Request.Op.
	Op Op
	// OK reports whether the operation applied (Get: whether found).
	OK bool
	// Err says why not.
	Err Err
	// Found reports whether the record exists after the operation.
	Found bool
	// Rec is the record after the operation, or the current record when the
	// operation did not apply (like Redis 7's SET ... NX GET), so clients can
	// report who holds it.
	Rec Record
	// Value is the counter value (Incr, and SetNX with a FenceKey).
	Value int64
}

// String describes the request for traces and step-level tests, e.g.
// "Update #3 rev=4 holder=n1 duration=15s transitions=1 token=1".
func (r *Request) String() string {
	b := fmt.Sprintf("%s #%d", r.Op, r.ID)
	if r.Op == OpUpdate {
		b += fmt.Sprintf(" rev=%d", r.Revision)
	}
	switch r.Op {
	case OpCreate, OpUpdate:
		b += fmt.Sprintf(" holder=%s duration=%v transitions=%d token=%d", r.Rec.HolderIdentity,
			time.Duration(r.Rec.LeaseDurationNs), r.Rec.Transitions, r.Rec.Token)
	case OpSetNX, OpCheckRenew:
		b += fmt.Sprintf(" holder=%s ttl=%v", r.Identity, r.TTL)
	}
	return b
}

// RequestMessage wraps req into a message to the store.
func RequestMessage(store sim.NodeID, req *Request) sim.Message {
	return sim.Message{Kind: opKinds[req.Op], To: store, Index: req.ID, Term: req.Revision, Body: req}
}

// ReplyOf extracts the reply from a KindReply message (nil otherwise).
func ReplyOf(m sim.Message) *Reply {
	if m.Kind != KindReply {
		return nil
	}
	r, _ := m.Body.(*Reply)
	return r
}
