package zkelect

import (
	"time"

	"github.com/electsim/electsim/sim"
)

// Op is a server operation.
type Op uint8

// The server's operations, each applied atomically on delivery.
const (
	// OpConnect opens a session with Request.Timeout (negotiated).
	OpConnect Op = iota + 1
	// OpPing keeps Request.Session alive (or learns it expired).
	OpPing
	// OpCreate creates an ephemeral sequential znode Request.Path+<seq>
	// owned by Request.Session for Request.Holder.
	OpCreate
	// OpChildren lists the znodes under Request.Path, by sequence.
	OpChildren
	// OpWatch answers once znode Request.Path is deleted (at once if it is
	// absent): exists() with a watch.
	OpWatch
	// OpDelete deletes znode Request.Path.
	OpDelete
	// OpGetData reads znode Request.Path's stat: Response.Owner is its
	// ephemeralOwner (0 if it is absent). Curator 5.7's checkLeadership.
	OpGetData
	numOps
)

var opNames = [numOps]string{"", "Connect", "Ping", "Create", "Children", "Watch", "Delete", "GetData"}

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
	KindResponse = sim.RegisterKind("zk.Response", sim.Fields{Index: "request_id"})
	// KindDisconnect is the server closing a client's connection (a
	// *Disconnect body): every server of an ensemble that loses its quorum
	// or its leader closes all its client connections
	// (Learner.shutdown, Leader.shutdown: QuorumPeer.closeAllConnections).
	KindDisconnect = sim.RegisterKind("zk.Disconnect", sim.Fields{Index: "session"})
)

// Disconnect tells a client its connection was closed; its session lives
// on (the client reconnects and revalidates it).
type Disconnect struct{ Session int64 }

func init() {
	for o := OpConnect; o < numOps; o++ {
		opKinds[o] = sim.RegisterKind("zk."+opNames[o], sim.Fields{Index: "request_id"})
	}
}

// Request is a client request, carried as a *Request in Message.Body.
type Request struct {
	ID      int64
	Op      Op
	Session int64
	Timeout time.Duration
	Path    string
	Holder  sim.NodeID
	// Protect is Curator's protection ID (CreateBuilder.withProtection):
	// a create re-sent with the same ID in the same session finds the
	// znode the first one made instead of making a second.
	Protect int64
}

// Znode is one ephemeral sequential znode of the latch.
type Znode struct {
	Path   string
	Seq    int64
	Czxid  int64
	Holder sim.NodeID
}

// Response answers a request, carried as a *Response in Message.Body.
type Response struct {
	ID      int64
	Op      Op
	Expired bool          // the session has expired
	Session int64         // Connect: the new session; otherwise the session the request (or watch) was made in
	Timeout time.Duration // Connect: the negotiated session timeout
	Owner   int64         // GetData: the znode's ephemeralOwner session, 0 if it is absent
	Node    Znode         // Create: the znode
	Nodes   []Znode       // Children: by sequence
}

func requestMessage(to sim.NodeID, r *Request) sim.Message {
	return sim.Message{Kind: opKinds[r.Op], To: to, Index: r.ID, Body: r}
}
