package consulelect

import (
	"time"

	"github.com/electsim/electsim/sim"
)

// Op is a server operation.
type Op uint8

// The server's operations, each applied atomically on delivery.
const (
	// OpSessionCreate creates a session (Session.Create) with
	// Request.TTL, Request.LockDelay and, when Request.Serf, bound to the
	// requesting node's serfHealth check.
	OpSessionCreate Op = iota + 1
	// OpSessionRenew renews Request.Session (Session.Renew); Response.OK
	// is false when the session is gone.
	OpSessionRenew
	// OpSessionDestroy destroys Request.Session (Session.Destroy).
	OpSessionDestroy
	// OpAcquire locks Request.Key for Request.Session (KV Acquire).
	OpAcquire
	// OpRelease unlocks Request.Key if Request.Session holds it (KV
	// Release).
	OpRelease
	// OpGet reads Request.Key; with Request.Index > 0 it is a blocking
	// query, answered once the key's index exceeds Request.Index or after
	// Request.Wait.
	OpGet
	// OpPing is the RPC connection's keep-alive (yamux ping).
	OpPing
	// OpProbe is the serf failure detector's probe of node Request.Node.
	// Sent to that node, it answers with an OpPing (ID 0) naming itself to
	// the sender; sent to another node, that node probes Request.Node and
	// forwards the answer to the server (memberlist's indirect probe).
	// With the agent a separate process (AgentSeparate) the probe and its
	// answer travel as kindAgentProbe and kindAgentAck, which the node's
	// host agent handles.
	OpProbe
	numOps
)

var opNames = [numOps]string{"", "SessionCreate", "SessionRenew", "SessionDestroy", "Acquire", "Release", "Get", "Ping", "Probe"}

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
	KindResponse = sim.RegisterKind("consul.Response", sim.Fields{Index: "request_id"})
)

// Serf's probe and its answer when the node's agent is a separate process
// on its host (AgentSeparate): host kinds, answered by the host's agent
// (sim.HostAgent) whether the application is up, crashed or paused, and
// lost like any message when the host's links are cut. Their bodies are
// an OpProbe and an OpPing (ID 0) Request.
var (
	kindAgentProbe = sim.RegisterHostKind("consul.AgentProbe", sim.Fields{Index: "request_id"})
	kindAgentAck   = sim.RegisterHostKind("consul.AgentAck", sim.Fields{Index: "request_id"})
)

// kindFits reports whether kind may carry a request of op.
func kindFits(kind sim.MsgKind, op Op) bool {
	return kind == opKinds[op] || (kind == kindAgentProbe && op == OpProbe) || (kind == kindAgentAck && op == OpPing)
}

func init() {
	for o := OpSessionCreate; o < numOps; o++ {
		opKinds[o] = sim.RegisterKind("consul."+opNames[o], sim.Fields{Index: "request_id"})
	}
}

// Request is a client request, carried as a *Request in Message.Body.
type Request struct {
	ID        int64
	Op        Op
	Session   int64
	TTL       time.Duration
	LockDelay time.Duration
	Serf      bool
	Sidecar   bool // SessionCreate: the node's agent is a separate process on its host (AgentSeparate): serf probes it with agent kinds
	Key       string
	Index     int64         // Get: block until the key's index exceeds it
	Wait      time.Duration // Get: the blocking query's wait
	Node      sim.NodeID    // Probe: the node probed; Ping with ID 0: the node that answered a probe
	Conn      uint64        // the client's connection: a new one on every start and after a dead one
}

// Pair is the lock's KV entry.
type Pair struct {
	Key         string
	Session     int64      // the holding session, 0 when free
	Holder      sim.NodeID // the node that acquired it last (the lock's value)
	LockIndex   int64      // how many times it was acquired
	ModifyIndex int64      // the index of its last change: the fencing token while held
}

// Response answers a request, carried as a *Response in Message.Body.
type Response struct {
	ID      int64
	Op      Op
	OK      bool   // Acquire: locked; Renew: the session lives; Release: released
	Invalid bool   // Acquire: the session does not exist, an error (kvsLockTxn: "invalid session")
	Session int64  // SessionCreate: the new session
	Pair    Pair   // Get, Acquire: the key as it is now (Key "" when absent)
	Index   int64  // Get: the index to block on next (X-Consul-Index)
	Boot    int64  // the server process answering: a new one resets connections
	Conn    uint64 // the request's connection
}

func requestMessage(to sim.NodeID, r *Request) sim.Message {
	return sim.Message{Kind: opKinds[r.Op], To: to, Index: r.ID, Body: r}
}

// probeMessage is serf's probe of node sent to to (node itself, or a
// member asked to probe it); sidecar: through the agents (host kinds).
func probeMessage(to, node sim.NodeID, sidecar bool) sim.Message {
	k := opKinds[OpProbe]
	if sidecar {
		k = kindAgentProbe
	}
	return sim.Message{Kind: k, To: to, Body: &Request{Op: OpProbe, Node: node}}
}

func responseMessage(to sim.NodeID, r *Response) sim.Message {
	return sim.Message{Kind: KindResponse, To: to, Index: r.ID, Body: r}
}
