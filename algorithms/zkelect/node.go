package zkelect

import (
	"time"

	"github.com/electsim/electsim/algorithms/internal/coord"
	"github.com/electsim/electsim/sim"
)

// Timer tags.
const (
	tagPing         = iota + 1 // ping when idle for a third of the session timeout
	tagSuspend                 // nothing heard for the read timeout: SUSPENDED
	tagLost                    // SUSPENDED for a whole session timeout: LOST (Curator)
	tagRequest                 // the pending latch request timed out
	tagRejoin                  // RejoinDelay elapsed
	tagDisconnected            // the closed socket's cleanup slept: Disconnected, SUSPENDED
)

// cleanupSleep is ClientCnxnSocketNIO.cleanup's Thread.sleep(100): after
// closing the socket the send thread sleeps 100 ms before
// cleanAndNotifyState queues the Disconnected event (ClientCnxn.java,
// SendThread.run and cleanAndNotifyState; zookeeper master, as 3.8).
const cleanupSleep = 100 * time.Millisecond

// spinDelay is the client's sleep before it tries again the server it was
// last connected to (ClientCnxn.SendThread.run: hostProvider.next(1000)).
const spinDelay = time.Second

// connection is Curator's ConnectionState as the latch sees it.
type connection uint8

const (
	connNone connection = iota
	connConnected
	// connClosing: ClientCnxn closed its socket (read timeout, or the
	// server closed it) and sleeps in cleanup; Curator is still CONNECTED.
	connClosing
	connSuspended
)

type step uint8

const (
	stepConnect step = iota + 1
	stepCreate
	stepChildren
	stepWatch
	stepDeleteOld
	stepOwner // Curator 5.7: the first znode's ephemeralOwner
	stepToken // the application's exists() for its znode's czxid (Config.Token)
)

// Node is a Curator LeaderLatch candidate on a ZooKeeper session.
type Node struct {
	cfg    Config
	server sim.NodeID
	env    sim.Env

	session int64
	timeout time.Duration // negotiated
	conn    connection
	myNode  Znode
	protect int64 // the protection ID of the latch znode being created, until its create is answered
	// orphan is an earlier latch znode of this session whose guaranteed
	// delete is not yet answered: a second reset must not drop it, or the
	// znode stays ahead of every other, owned by a live session that no
	// longer watches it, and nobody leads again.
	orphan  string
	leading bool
	belief  coord.Belief
	// lostOnce: a session was lost, so the next session's connect is
	// Curator's RECONNECTED to the latch, which still holds its old znode
	// path (LeaderLatch.ourPath) rather than starting afresh.
	lostOnce bool
	// suspendedWall is the wall clock when SUSPENDED began
	// (ConnectionStateManager.startOfSuspendedEpoch, System.currentTimeMillis).
	suspendedWall int64
	// attempts counts the reconnection attempts since the connection was
	// lost: every ConnectServers-th returns to the server last connected
	// to, after the spin delay (StaticHostProvider.next).
	attempts int

	pend    coord.Pending[*Request, step] // the request (or watch) awaited
	ping    sim.TimerID
	suspend sim.TimerID
	lost    sim.TimerID
	rejoin  sim.TimerID
	closing sim.TimerID
}

// New returns a candidate talking to the server.
func New(cfg Config, server sim.NodeID) (*Node, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Node{cfg: cfg, server: server}, nil
}

// MustNew is New for configurations known to be valid.
func MustNew(cfg Config, server sim.NodeID) *Node {
	n, err := New(cfg, server)
	if err != nil {
		panic(err)
	}
	return n
}

// Start implements sim.Node: a fresh process opens a new session.
func (n *Node) Start(env sim.Env, _ []byte) {
	*n = Node{cfg: n.cfg, server: n.server, env: env}
	n.connect()
}

// Leading reports whether the latch has leadership.
func (n *Node) Leading() bool { return n.leading }

// TimerName implements sim.TimerNamer.
func (n *Node) TimerName(tag int) string {
	switch tag {
	case tagPing:
		return "zk.ping"
	case tagSuspend:
		return "zk.read_timeout"
	case tagLost:
		return "curator.lost"
	case tagRequest:
		return "zk.request"
	case tagRejoin:
		return "zk.rejoin"
	case tagDisconnected:
		return "zk.cleanup"
	}
	return ""
}

// OnMessage implements sim.Node.
func (n *Node) OnMessage(m sim.Message) {
	if d, ok := m.Body.(*Disconnect); ok && m.Kind == KindDisconnect {
		if n.session != 0 && d.Session == n.session {
			// ClientCnxn sees its socket closed: Disconnected after its
			// cleanup, not after the read timeout; Curator's SUSPENDED.
			n.closeSocket()
		}
		return
	}
	rep, ok := m.Body.(*Response)
	if !ok || m.Kind != KindResponse || n.conn == connClosing {
		return // nothing reaches a closed socket
	}
	if rep.Op != OpConnect {
		if n.session == 0 || rep.Session != n.session {
			// Another session's answer: a previous process's on this node,
			// or an earlier session's. ZooKeeper answers on the session's
			// own connection, so it never reaches this one; matching the
			// request ID alone took a dead process's watch for this
			// process's getChildren, found its own znode missing and
			// orphaned it (testdata/rapid/restart-all-watch.fail).
			return
		}
		if rep.Expired {
			n.sessionLost("session expired")
			return
		}
		n.heard()
	}
	if rep.Op == OpPing {
		return
	}
	st, ok := n.pend.Answer(n.env, rep.ID)
	if !ok {
		return // stale: timed out, or from an older session
	}
	switch st {
	case stepConnect:
		n.session, n.timeout = rep.Session, rep.Timeout
		n.conn = connConnected
		n.heard()
		if n.lostOnce {
			n.reconnected() // a new session after LOST: Curator posts RECONNECTED
			return
		}
		n.createLatchNode() // LeaderLatch.start
	case stepCreate:
		n.myNode, n.protect = rep.Node, 0
		n.reached(StateLatchCreated)
		n.checkLeadership()
	case stepChildren:
		var pred *Znode
		for i := range rep.Nodes {
			z := &rep.Nodes[i]
			if z.Seq < n.myNode.Seq && (pred == nil || z.Seq > pred.Seq) {
				pred = z
			}
		}
		mine := false
		for _, z := range rep.Nodes {
			mine = mine || z.Path == n.myNode.Path
		}
		switch {
		case !mine:
			n.reset() // "Can't find our node. Resetting."
		case pred == nil && n.cfg.minor() >= 7:
			// CURATOR-696 (5.7): lead only if the znode is this session's.
			n.request(&Request{Op: OpGetData, Session: n.session, Path: n.myNode.Path}, stepOwner)
		case pred == nil:
			n.takeLeadership()
		default:
			if n.cfg.minor() >= 4 && n.leading {
				n.leading = false // checkLeadership: setLeadership(false)
				n.env.StopLeading("latch znode not first")
			}
			first := rep.Nodes[0]
			for _, z := range rep.Nodes {
				if z.Seq < first.Seq {
					first = z
				}
			}
			n.believe(first.Holder, first.Czxid)
			n.request(&Request{Op: OpWatch, Session: n.session, Path: pred.Path}, stepWatch)
		}
	case stepOwner:
		if rep.Owner != n.session {
			n.reset() // "this node is gone - reset"
			return
		}
		n.takeLeadership()
	case stepToken:
		n.tokenRead(rep)
	case stepWatch:
		n.reached(StateWatchFired)
		n.checkLeadership()
	case stepDeleteOld:
		n.orphan = ""
		n.createLatchNode()
	}
}

// OnTimer implements sim.Node.
func (n *Node) OnTimer(id sim.TimerID, tag int) {
	switch tag {
	case tagPing:
		if id == n.ping && n.session != 0 {
			n.ping = 0
			n.env.Send(requestMessage(n.server, &Request{ID: n.pend.NextID(), Op: OpPing, Session: n.session}))
			n.arm(&n.ping, n.pingInterval(), tagPing)
		}
	case tagSuspend:
		if id == n.suspend {
			n.suspend = 0
			n.closeSocket() // SessionTimeoutException: cleanAndNotifyState
		}
	case tagDisconnected:
		if id == n.closing {
			n.closing = 0
			n.suspended()
		}
	case tagLost:
		if id == n.lost {
			n.lost = 0
			n.checkSessionExpiration()
		}
	case tagRequest:
		if req, st, ok := n.pend.Expired(id); ok {
			again := *req
			n.request(&again, st)
		}
	case tagRejoin:
		if id == n.rejoin {
			n.rejoin = 0
			n.connect()
		}
	}
}

// Resign closes the latch: leadership ends and the znode is deleted.
func (n *Node) Resign() {
	if n.env == nil {
		return
	}
	if n.leading {
		n.leading = false
		n.env.StopLeading("resign")
	}
	if n.myNode.Path != "" {
		n.env.Send(requestMessage(n.server, &Request{ID: n.pend.NextID(), Op: OpDelete, Session: n.session, Path: n.myNode.Path}))
	}
	n.stop()
}

// --- connection states ---

// connect opens a new session. After LOST the latch keeps its znode path
// (LeaderLatch.ourPath) and its pending guaranteed delete: the old session
// may still live on the server (Curator injects LOST by its own clock), and
// what the latch does with them on RECONNECTED depends on the version.
func (n *Node) connect() {
	n.session, n.protect = 0, 0
	n.request(&Request{Op: OpConnect, Timeout: n.cfg.SessionTimeout}, stepConnect)
}

// heard: a reply came; the read timeout restarts. In SUSPENDED this is
// RECONNECTED (reconnected).
func (n *Node) heard() {
	n.arm(&n.suspend, 2*n.timeout/3, tagSuspend)
	if n.ping == 0 {
		n.arm(&n.ping, n.timeout/3, tagPing)
	}
	if n.conn != connSuspended {
		return
	}
	n.conn = connConnected
	n.disarm(&n.lost)
	n.arm(&n.ping, n.timeout/3, tagPing)
	n.reconnected()
}

// reconnected is LeaderLatch.handleStateChange(RECONNECTED), by version
// (apache-curator-5.3.0, 5.4.0, 5.8.0 tags): up to 5.7, only when
// SUSPENDED counts as an error or the latch does not lead; then up to 5.3
// reset() (a new znode at the back of the queue), from 5.4 getChildren()
// (checkLeadership: the znode kept, leadership taken back if it is still
// first). From 5.8 getChildren() whatever the policy and leadership.
func (n *Node) reconnected() {
	v := n.cfg.minor()
	if v < 8 && n.cfg.Policy == PolicySession && n.leading {
		return
	}
	if v < 4 {
		n.reset()
		return
	}
	if n.myNode.Path == "" {
		n.reset() // ourPath is null: index -1, reset
		return
	}
	n.checkLeadership()
}

// closeSocket is SendThread.cleanAndNotifyState on a read timeout or a
// socket the server closed: the socket is closed and the thread sleeps
// cleanupSleep (100 ms) before the Disconnected event is queued. Until
// then Curator is CONNECTED and the latch leads on; nothing reaches the
// closed socket, and no ping goes out.
func (n *Node) closeSocket() {
	if n.conn != connConnected {
		return
	}
	n.conn = connClosing
	n.disarm(&n.suspend)
	n.disarm(&n.ping)
	n.arm(&n.closing, cleanupSleep, tagDisconnected)
}

// suspended is SUSPENDED, when the Disconnected event comes: under the
// standard policy the latch gives up leadership at once; Curator's LOST
// follows a session timeout later.
func (n *Node) suspended() {
	if n.conn != connClosing {
		return
	}
	n.conn = connSuspended
	n.reached(StateSuspended)
	if n.cfg.Policy == PolicyStandard && n.leading {
		n.leading = false
		n.env.StopLeading("connection suspended")
	}
	n.suspendedWall = n.env.WallNanos()
	n.attempts = 0
	n.arm(&n.lost, n.timeout, tagLost)
	n.arm(&n.ping, n.pingInterval(), tagPing)
}

// checkSessionExpiration is ConnectionStateManager's: its event loop
// waits (a monotonic poll) for the session timeout less the time already
// SUSPENDED, then injects a session expiration, LOST, once SUSPENDED has
// lasted the (negotiated) session timeout by the wall clock: elapsed is
// System.currentTimeMillis() - startOfSuspendedEpoch
// (ConnectionStateManager.processEvents, checkSessionExpiration;
// curator-framework, apache-curator-5.9.0). A wall clock stepped back
// during SUSPENDED lengthens it, so a session-policy leader leads longer;
// stepped forward, LOST comes at the next check.
func (n *Node) checkSessionExpiration() {
	elapsed := time.Duration(n.env.WallNanos() - n.suspendedWall)
	if elapsed >= n.timeout {
		n.sessionLost("connection lost for the session timeout")
		return
	}
	n.arm(&n.lost, n.timeout-elapsed, tagLost)
}

// pingInterval is when the client next tries the server: connected, a ping
// when idle for T/3; disconnected, a reconnection, which revalidates the
// session if it lives. ClientCnxn.SendThread.run (ZooKeeper 3.8) takes
// the next server with hostProvider.next(1000), which sleeps spinDelay
// first when that server is the one it was last connected to
// (StaticHostProvider.next: currentIndex == lastIndex), and startConnect
// then sleeps a random back-off under a second
// (ThreadLocalRandom.nextLong(1000)). With one server in the connect
// string every attempt spins: measured against ZooKeeper 3.8.0 and Curator
// 5.4, a standalone server's client reconnected 1.0 to 2.0 s after its
// Disconnected, not within a second (docs/reality.md, zk-short-cut).
func (n *Node) pingInterval() time.Duration {
	if n.conn == connSuspended {
		n.attempts++
		d := n.env.Rand().DurationRange(0, time.Second)
		if n.attempts%n.cfg.ConnectServers == 0 {
			d += spinDelay
		}
		return d
	}
	return n.timeout / 3
}

// sessionLost is LOST: leadership ends; a new session starts after
// RejoinDelay (Curator reconnects with a new session).
func (n *Node) sessionLost(why string) {
	if n.leading {
		n.leading = false
		n.env.StopLeading("connection lost: " + why)
	}
	n.session, n.conn, n.protect = 0, connNone, 0
	n.lostOnce = true
	n.halt()
	n.arm(&n.rejoin, n.cfg.RejoinDelay, tagRejoin)
}

// stop is the latch closed: its znodes are forgotten.
func (n *Node) stop() {
	n.session, n.conn, n.myNode, n.protect, n.orphan = 0, connNone, Znode{}, 0, ""
	n.halt()
}

func (n *Node) halt() {
	n.pend.Drop(n.env)
	n.disarm(&n.ping)
	n.disarm(&n.suspend)
	n.disarm(&n.lost)
	n.disarm(&n.closing)
}

// reset is LeaderLatch.reset: leadership off, the old znode deleted (a
// guaranteed delete: Curator's FailedDeleteManager retries it until it
// succeeds, whatever the latch does meanwhile), then a new one created. A
// reset that comes while an earlier reset's delete is unanswered carries
// that delete on.
func (n *Node) reset() {
	if n.leading {
		n.leading = false
		n.env.StopLeading("latch reset")
	}
	if n.myNode.Path != "" {
		n.orphan, n.myNode = n.myNode.Path, Znode{}
	}
	if n.orphan != "" {
		n.request(&Request{Op: OpDelete, Session: n.session, Path: n.orphan}, stepDeleteOld)
		return
	}
	n.createLatchNode()
}

// --- the latch ---

// createLatchNode creates the latch's protected ephemeral sequential znode
// (LeaderLatch uses withProtection, so a create re-sent after a lost reply
// finds its znode instead of leaving an orphan ahead of itself).
//
// A create still unanswered when the latch resets keeps its protection ID:
// the server may have made its znode, and the new create must find that
// one rather than queue a second znode behind it. (Curator reaches the
// same end another way: the late create's callback calls setNode, which
// deletes the znode it replaces.)
func (n *Node) createLatchNode() {
	n.myNode = Znode{}
	if n.protect == 0 {
		n.protect = n.pend.NextID()
	}
	n.request(&Request{Op: OpCreate, Session: n.session, Path: "/" + n.cfg.Name + "/latch-", Holder: n.env.ID(), Protect: n.protect}, stepCreate)
}

func (n *Node) checkLeadership() {
	n.request(&Request{Op: OpChildren, Session: n.session, Path: "/" + n.cfg.Name + "/latch-"}, stepChildren)
}

func (n *Node) takeLeadership() {
	if n.leading {
		return
	}
	if n.conn != connConnected {
		return
	}
	n.leading = true
	n.reached(StateLeading)
	if n.cfg.Token == TokenCzxid {
		// isLeader() has fired, but LeaderLatch hands the application no
		// zxid (its public API has getOurPath(), hasLeadership(), getId();
		// LeaderLatch.java at apache-curator-5.9.0): it reads the znode's
		// Stat with exists(getOurPath()) and acts with its czxid only
		// when that answer arrives (answered, stepToken).
		n.believe(n.env.ID(), n.myNode.Czxid)
		n.request(&Request{Op: OpGetData, Session: n.session, Path: n.myNode.Path}, stepToken)
		return
	}
	// The default: the application acts at once, with no token (0).
	n.env.ActAsLeader(n.myNode.Czxid, 0)
	n.believe(n.env.ID(), n.myNode.Czxid)
}

// tokenRead is the answer to the application's exists(): it acts as leader
// with the znode's czxid if it still leads and the znode is still its own.
func (n *Node) tokenRead(rep *Response) {
	if !n.leading || rep.Node.Path != n.myNode.Path || rep.Node.Czxid == 0 {
		return // leadership ended, or the znode is gone: no token, no act
	}
	n.env.ActAsLeader(n.myNode.Czxid, rep.Node.Czxid)
}

func (n *Node) believe(holder sim.NodeID, epoch int64) { n.belief.Report(n.env, holder, epoch) }

func (n *Node) request(req *Request, st step) {
	req.ID = n.pend.NextID()
	n.pend.Await(n.env, req.ID, st, req, n.cfg.RequestTimeout, tagRequest)
	n.env.Send(requestMessage(n.server, req))
}

func (n *Node) arm(t *sim.TimerID, d time.Duration, tag int) { coord.Arm(n.env, t, d, tag) }

func (n *Node) disarm(t *sim.TimerID) { coord.Disarm(n.env, t) }
