package etcdelect

import (
	"time"

	"github.com/electsim/electsim/sim"
)

// Op is a server operation.
type Op uint8

// The server's operations, each applied atomically on delivery.
const (
	// OpGrant grants a lease of Request.TTL (LeaseGrant).
	OpGrant Op = iota + 1
	// OpKeepAlive refreshes lease Request.Lease to its full TTL and returns
	// the TTL, or 0 if the lease is gone (LeaseKeepAlive).
	OpKeepAlive
	// OpPut puts Request.Key for Request.Holder with lease Request.Lease if
	// the key is absent, and returns the key's create revision either way
	// (Campaign's Txn: If(CreateRevision(k) == 0).Then(Put).Else(Get)).
	OpPut
	// OpRangeBelow returns, of the keys under Request.Key (a prefix), the
	// one with the highest create revision at most Request.MaxCreateRev
	// (waitDeletes' Get with WithLastCreate and WithMaxCreateRev).
	OpRangeBelow
	// OpWatchDelete answers once Request.Key is deleted (at once if it is
	// absent): a watch on the predecessor (waitDelete).
	OpWatchDelete
	// OpDelete deletes Request.Key if its create revision is
	// Request.CreateRev (Resign's Txn: If(CreateRevision(k) ==
	// leaderRev).Then(Delete)).
	OpDelete
	// OpObserve answers with the election's first-created key under
	// Request.Key (a prefix), and again whenever that changes
	// (Election.Observe: Get WithFirstCreate, then watch).
	OpObserve
	numOps
)

var opNames = [numOps]string{"", "Grant", "KeepAlive", "Put", "RangeBelow", "WatchDelete", "Delete", "Observe"}

// String names the operation.
func (o Op) String() string {
	if o < numOps {
		return opNames[o]
	}
	return "Op?"
}

// Message kinds: one per request operation, one for responses.
var (
	opKinds      [numOps]sim.MsgKind
	KindResponse = sim.RegisterKind("etcd.Response", sim.Fields{Index: "request_id"})
)

func init() {
	for o := OpGrant; o < numOps; o++ {
		opKinds[o] = sim.RegisterKind("etcd."+opNames[o], sim.Fields{Index: "request_id"})
	}
}

// Request is a client request, carried as a *Request in Message.Body.
type Request struct {
	ID           int64
	Op           Op
	TTL          time.Duration
	Lease        int64
	Key          string
	Holder       sim.NodeID
	MaxCreateRev int64
	CreateRev    int64 // Delete: the create revision the key must still have
}

// Response answers a request, carried as a *Response in Message.Body.
type Response struct {
	ID    int64
	Op    Op
	Lease int64         // Grant: the lease ID
	TTL   time.Duration // Grant, KeepAlive: the lease's TTL (0: not found)
	// Session is the lease the request (or watch) was made under, 0
	// before a grant. etcd answers on the client's own gRPC stream, so an
	// answer never reaches a later process on the same node; the client
	// takes only its own session's.
	Session int64
	// Found reports whether RangeBelow found a key; Key, Holder and
	// CreateRev describe it (Put: the candidate's own key).
	Found     bool
	Key       string
	Holder    sim.NodeID
	CreateRev int64
}

func requestMessage(to sim.NodeID, r *Request) sim.Message {
	return sim.Message{Kind: opKinds[r.Op], To: to, Index: r.ID, Body: r}
}
