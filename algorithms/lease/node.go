package lease

import (
	"fmt"
	"slices"
	"time"

	"github.com/electsim/electsim/algorithms/internal/coord"
	"github.com/electsim/electsim/sim"
)

// phase is where a candidate is in its life cycle.
type phase uint8

const (
	phaseAcquire phase = iota + 1 // trying to take the lease
	phaseLead                     // holding it (acting as leader)
	phaseRelease                  // k8s: releasing after a lost renewal or a resign
	phaseRejoin                   // lost it; waiting RejoinDelay to compete again
	phaseStopped                  // resigned: does nothing more until restarted
)

var phaseNames = [...]string{"", "acquire", "lead", "release", "rejoin", "stopped"}

// Timer tags.
const (
	tagTick      = iota + 1 // acquisition retry, k8s renewal tick/round, ttl renewal, walltime extension
	tagDeadline             // k8s RenewDeadline of a renewal round, or of a release
	tagRequest              // the pending request timed out
	tagValidity             // ttl: the holder's local estimate of its lease ran out
	tagShutdown             // Config.ShutdownAt reached
	tagRejoin               // RejoinDelay elapsed
	tagRound                // redlock: the round to every master timed out
	tagTaskDone             // walltime: the leader's task (Config.TaskDuration) ended
	tagTokenRead            // k8s: the application's Get of leaseTransitions timed out
)

// step says what the reply to the pending request continues.
type step uint8

const (
	stepK8sFastUpdate step = iota + 1
	stepK8sGet
	stepK8sCreate
	stepK8sUpdate
	stepK8sRelGet
	stepK8sRelUpdate
	stepTTLSet
	stepTTLRenew
	stepTTLAbort
	stepWallLock
	stepWallExtend
)

// Node is a lease candidate. It talks to the store over the simulated network,
// one request at a time, and reports what it believes through the
// observations: ActAsLeader(token, token) when it starts acting, StopLeading
// when it stops, BelieveLeader(holder, token) when the holder it knows of
// changes.
type Node struct {
	cfg    Config
	peers  []sim.NodeID
	store  sim.NodeID
	stores []sim.NodeID // every store; redlock talks to all of them
	env    sim.Env
	// incarnation is this boot's UUID under IdentityProcess ("": the
	// node's name is the identity).
	incarnation string

	phase    phase
	resigned bool
	leading  bool
	leadAt   time.Duration // monotonic reading when the tenure began
	token    int64
	belief   coord.Belief

	reqSeq   int64
	pendID   int64
	pendStep step
	reqTimer sim.TimerID
	tokID    int64       // k8s: the application's pending token Get (Config.Token)
	tokTimer sim.TimerID // its timeout

	tick     sim.TimerID
	deadline sim.TimerID
	validity sim.TimerID
	shutdown sim.TimerID
	rejoin   sim.TimerID

	k  k8sState
	t  ttlState
	w  wallState
	rl redlockState
}

// New returns a candidate with cfg; peers are all candidates' IDs (ascending,
// including this one) and store is the lease store's ID. It returns an error
// if cfg is invalid (and for redlock, which needs NewWithStores).
func New(cfg Config, peers []sim.NodeID, store sim.NodeID) (*Node, error) {
	return NewWithStores(cfg, peers, []sim.NodeID{store})
}

// NewWithStores is New for one or more stores: redlock needs exactly
// Config.Masters of them (its independent masters); the other flavours
// use the first.
func NewWithStores(cfg Config, peers []sim.NodeID, stores []sim.NodeID) (*Node, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	want := 1
	if cfg.Flavor == FlavorRedlock {
		want = cfg.Masters
	}
	if len(stores) < want {
		return nil, fmt.Errorf("lease: flavor %s needs %d store node(s), got %d", cfg.Flavor, want, len(stores))
	}
	return &Node{cfg: cfg, peers: peers, store: stores[0], stores: slices.Clone(stores[:want])}, nil
}

// MustNew is New for configurations known to be valid (tests, fixed
// examples): it panics on the error New would return.
func MustNew(cfg Config, peers []sim.NodeID, store sim.NodeID) *Node {
	n, err := New(cfg, peers, store)
	if err != nil {
		panic(err)
	}
	return n
}

// Start implements sim.Node. A candidate persists nothing: a restarted
// process competes afresh (client-go keeps no state across restarts).
func (n *Node) Start(env sim.Env, _ []byte) {
	*n = Node{cfg: n.cfg, peers: n.peers, store: n.store, stores: n.stores, env: env}
	if n.cfg.Flavor == FlavorK8s && n.cfg.Identity == IdentityProcess {
		// A new process, a new identity (uuid.NewUUID in
		// kube-controller-manager's leader election setup).
		n.incarnation = fmt.Sprintf("%016x", env.Rand().Uint64())
	}
	if n.cfg.ShutdownAt > 0 {
		if env.Now() >= n.cfg.ShutdownAt {
			n.resigned, n.phase = true, phaseStopped
			return
		}
		n.shutdown = env.SetTimer(n.cfg.ShutdownAt-env.Now(), tagShutdown)
	}
	n.startAcquire()
}

// OnMessage implements sim.Node: a store reply continues the pending request.
func (n *Node) OnMessage(m sim.Message) {
	r := ReplyOf(m)
	if r != nil && n.cfg.Flavor == FlavorRedlock {
		n.redlockReply(m.From, r)
		return
	}
	if r != nil && n.tokID != 0 && r.ID == n.tokID {
		n.tokenRead(r)
		return
	}
	if r == nil || n.pendID == 0 || r.ID != n.pendID {
		return // stale: timed out, abandoned, or from before a restart
	}
	st := n.pendStep
	n.abandon()
	n.onReply(st, r)
}

// OnTimer implements sim.Node.
func (n *Node) OnTimer(id sim.TimerID, tag int) {
	switch tag {
	case tagRequest:
		if id != n.reqTimer {
			return
		}
		n.reqTimer = 0
		st := n.pendStep
		n.pendID = 0
		n.onReply(st, nil)
	case tagTokenRead:
		if id == n.tokTimer {
			n.tokTimer = 0
			n.readToken() // the read failed: read again; act only on an answer
		}
	case tagTick:
		if id == n.tick {
			n.tick = 0
			n.onTick()
		}
	case tagDeadline:
		if id == n.deadline {
			n.deadline = 0
			n.k8sDeadline()
		}
	case tagValidity:
		if id == n.validity && n.phase == phaseLead {
			n.validity = 0
			n.lost("lease expired (local estimate)")
		}
	case tagTaskDone:
		if id == n.validity {
			n.validity = 0
			n.wallTaskDone()
		}
	case tagShutdown:
		if id == n.shutdown {
			n.shutdown = 0
			n.Resign()
		}
	case tagRound:
		if id == n.rl.timer {
			n.rl.timer = 0
			n.redlockDeadline()
		}
	case tagRejoin:
		if id == n.rejoin && n.phase == phaseRejoin {
			n.rejoin = 0
			n.startAcquire()
		}
	default:
		if i := tag - tagRedisCall; i >= 0 && i < MaxMasters && id == n.rl.calls[i].timer {
			n.redlockCallTimer(i)
		}
	}
}

// Resign shuts the candidate down gracefully, as cancelling client-go's
// context does: it stops acting at once and, with ReleaseOnCancel, releases
// the lease; otherwise the lease is left to expire. It never competes again
// (until crashed and restarted). Call it from a sim.At callback via
// s.Node(id).(*lease.Node).
func (n *Node) Resign() {
	if n.resigned || n.env == nil {
		return
	}
	n.resigned = true
	n.disarm(&n.shutdown)
	switch n.cfg.Flavor {
	case FlavorK8s:
		n.k8sResign()
	case FlavorTTL:
		n.ttlResign()
	case FlavorWallTime:
		n.wallResign()
	case FlavorRedlock:
		n.redlockResign()
	}
}

// --- accessors (read-only, for tests and inspection) ---

// Leading reports whether the candidate acts as leader.
func (n *Node) Leading() bool { return n.leading }

// Token returns the fencing token of the current or last tenure.
func (n *Node) Token() int64 { return n.token }

// Holder returns the holder the candidate last believed in (sim.None: none).
func (n *Node) Holder() sim.NodeID { return n.belief.Holder() }

// Resigned reports whether Resign ran.
func (n *Node) Resigned() bool { return n.resigned }

// Phase names the life-cycle phase: "acquire", "lead", "release", "rejoin"
// or "stopped".
func (n *Node) Phase() string { return phaseNames[n.phase] }

// Config returns the candidate's configuration.
func (n *Node) Config() Config { return n.cfg }

// --- life cycle shared by the flavours ---

// startAcquire enters the acquisition loop with fresh flavour state; the
// first attempt is immediate (wait.JitterUntil runs f before waiting).
func (n *Node) startAcquire() {
	n.phase = phaseAcquire
	n.k, n.t, n.w, n.rl = k8sState{}, ttlState{}, wallState{}, redlockState{}
	n.attempt()
}

func (n *Node) attempt() {
	switch n.cfg.Flavor {
	case FlavorK8s:
		n.k8sAttempt()
	case FlavorTTL:
		n.ttlAttempt()
	case FlavorWallTime:
		n.wallAttempt()
	case FlavorRedlock:
		n.redlockAttempt()
	}
}

func (n *Node) onTick() {
	switch n.cfg.Flavor {
	case FlavorK8s:
		n.k8sTick()
	case FlavorTTL:
		n.ttlTick()
	case FlavorWallTime:
		n.wallTick()
	case FlavorRedlock:
		n.redlockTick()
	}
}

func (n *Node) onReply(st step, r *Reply) {
	switch {
	case st <= stepK8sRelUpdate:
		n.k8sReply(st, r)
	case st <= stepTTLAbort:
		n.ttlReply(st, r)
	default:
		n.wallReply(st, r)
	}
}

// retryLater waits RetryPeriod jittered by JitterFactor, then attempts again.
func (n *Node) retryLater() { n.arm(&n.tick, n.jittered(), tagTick) }

// jittered is apimachinery's wait.Jitter(RetryPeriod, JitterFactor):
// RetryPeriod + U[0,1)·JitterFactor·RetryPeriod.
func (n *Node) jittered() time.Duration {
	d := n.cfg.RetryPeriod
	if n.cfg.JitterFactor > 0 {
		d += time.Duration(n.env.Rand().Float64() * n.cfg.JitterFactor * float64(n.cfg.RetryPeriod))
	}
	return d
}

// lead starts acting as leader with the tenure's fencing token.
func (n *Node) lead(token int64) {
	n.phase = phaseLead
	n.leading, n.token, n.leadAt = true, token, n.env.Now()
	n.reached(StateAcquired)
	switch {
	case n.cfg.Token == TokenNone:
		n.env.ActAsLeader(token, 0) // the default: no token
	case n.cfg.Flavor == FlavorK8s:
		// OnStartedLeading(ctx) hands the application no record
		// (client-go leaderelection.go LeaderCallbacks): it Gets the Lease
		// for leaseTransitions and acts when the answer arrives.
		n.readToken()
	default:
		n.env.ActAsLeader(token, token) // the application's counter, from its acquire script
	}
}

// readToken sends the application's Get of the lease record (k8s, Config.Token
// fence), on its own request ID beside the elector's.
func (n *Node) readToken() {
	if !n.leading {
		return
	}
	n.reqSeq++
	n.tokID = n.reqSeq
	n.arm(&n.tokTimer, n.cfg.requestTimeout(), tagTokenRead)
	n.env.Send(RequestMessage(n.store, &Request{ID: n.tokID, Op: OpGet, Key: n.cfg.Key}))
}

// tokenRead is the answer to readToken: the leader acts with the record's
// leaseTransitions if it still leads and the record still names it.
func (n *Node) tokenRead(r *Reply) {
	n.tokID = 0
	n.disarm(&n.tokTimer)
	if !n.leading || r.Rec.Holder != n.env.ID() {
		return // the tenure ended, or the record names another holder: no act
	}
	n.env.ActAsLeader(n.token, r.Rec.Transitions)
}

func (n *Node) stopLeading(why string) {
	n.tokID = 0
	n.disarm(&n.tokTimer)
	if n.leading {
		n.leading = false
		n.env.StopLeading(why)
	}
}

// believe reports the holder the candidate now believes in, if it changed.
func (n *Node) believe(holder sim.NodeID, epoch int64) { n.belief.Report(n.env, holder, epoch) }

// lost ends a tenure that the candidate did not give up by itself.
func (n *Node) lost(why string) {
	n.stopLeading(why)
	n.afterStop()
}

// afterStop cancels everything in flight and either stops for good
// (resigned) or rejoins after RejoinDelay.
func (n *Node) afterStop() {
	n.abandon()
	n.disarm(&n.tick)
	n.disarm(&n.deadline)
	n.disarm(&n.validity)
	n.disarm(&n.rl.timer)
	n.callsStop()
	n.rl.round = 0
	if n.resigned {
		n.disarm(&n.rejoin)
		n.phase = phaseStopped
		return
	}
	n.phase = phaseRejoin
	n.arm(&n.rejoin, n.cfg.RejoinDelay, tagRejoin)
}

// --- requests ---

// request sends req to the store as the single pending request, continued by
// st when the reply arrives or the request timeout (Config.RequestTimeout)
// passes.
func (n *Node) request(req *Request, st step) {
	n.reqSeq++
	req.ID = n.reqSeq
	req.Key = n.cfg.Key
	n.pendID, n.pendStep = req.ID, st
	n.arm(&n.reqTimer, n.cfg.requestTimeout(), tagRequest)
	n.env.Send(RequestMessage(n.store, req))
}

// sendOneway sends req without waiting for the reply (a release on shutdown).
func (n *Node) sendOneway(req *Request) {
	n.reqSeq++
	req.ID = n.reqSeq
	req.Key = n.cfg.Key
	n.env.Send(RequestMessage(n.store, req))
}

// abandon forgets the pending request (its reply will be ignored).
func (n *Node) abandon() {
	n.pendID = 0
	n.disarm(&n.reqTimer)
}

func (n *Node) arm(t *sim.TimerID, d time.Duration, tag int) { coord.Arm(n.env, t, d, tag) }

func (n *Node) disarm(t *sim.TimerID) { coord.Disarm(n.env, t) }
