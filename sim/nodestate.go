package sim

import (
	"time"
)

// timer slot states.
const (
	timerFree  uint8 = iota
	timerArmed       // in the queue
	timerDue         // fired while paused, waiting in the pause buffer
)

type timerSlot struct {
	deadline int64  // monotonic reading at which it fires
	queuedAt Time   // true time of its queue entry
	queueSeq uint64 // seq of its queue entry: only that entry may fire it
	gen      uint32
	tag      int
	state    uint8
}

type pendingWrite struct {
	doneAt Time
	data   []byte
}

// nodeState is the engine's side of a node; it implements Env.
type nodeState struct {
	s         *Sim
	id        NodeID
	name      string
	service   bool
	stream    bool // its connections are TCP's: Streams
	node      Node
	fresh     func() Node    // AddFreshNode: a new value on every boot
	hook      LeadershipHook // told of the node's leadership calls (HookLeadership)
	clk       clocks
	rng       Rand
	diskRng   Rand
	fsync     Dist
	fsyncBase Dist          // the configured latency: SetFsync back to it ends a disk fault
	stepped   time.Duration // wall-clock steps since the run started (StepWall): 0 again ends the offset
	up        bool
	paused    bool
	startDown bool
	inc       uint32 // incarnation: bumped by every crash
	timers    []timerSlot
	free      []int32
	pauseBuf  []event
	durable   []byte
	hasDisk   bool // durable holds a completed write
	diskLost  bool // Restart wiped the disk: the next RecStart carries FactDiskLost
	pending   []pendingWrite
	spare     [][]byte // recycled write buffers
	barrier   Time     // sends before this true time wait for the disk
	leading   bool
	epoch     int64
	token     int64
}

// MaxNodes bounds the number of nodes in one run.
const MaxNodes = 1 << 15

// NodeOption configures a node when it is added.
type NodeOption func(*nodeState)

// Fsync sets the node's disk write latency distribution (default zero).
func Fsync(d Dist) NodeOption { return func(n *nodeState) { n.fsync = d } }

// Service marks the node as a service (lease store, fenced resource) rather
// than a candidate; it only affects how reports group nodes.
func Service() NodeOption { return func(n *nodeState) { n.service = true } }

// Streams marks the node as one every client reaches over a TCP
// connection (an HTTP API server, a database): a message to or from it is
// never duplicated by the network, and a lost segment or a cut link costs
// retransmissions after TCP's timeouts rather than the message (see
// transmitSent), until tcp_retries2 of them fail or the sender crashes.
// The client's own request timeout is its business: a request it gave up
// may still arrive, as over a real connection.
func Streams() NodeOption { return func(n *nodeState) { n.stream = true } }

// StartDown keeps the node down at the start; Restart brings it up.
func StartDown() NodeOption { return func(n *nodeState) { n.startDown = true } }

// AddNode adds a node named name and returns its ID. Nodes must be added
// before the first Run.
func (s *Sim) AddNode(name string, node Node, opts ...NodeOption) NodeID {
	if s.started {
		panic("sim: AddNode after the run started")
	}
	if len(s.nodes) >= MaxNodes {
		panic("sim: too many nodes")
	}
	for _, o := range s.nodes {
		if o.name == name {
			panic("sim: two nodes named " + name + " (names seed the nodes' random streams)")
		}
	}
	n := &nodeState{s: s, id: NodeID(len(s.nodes)), name: name, node: node, fsync: Constant(0)}
	n.rng.Reset(s.cfg.Seed, "node/"+name)
	n.diskRng.Reset(s.cfg.Seed, "disk/"+name)
	n.clk.mono = segment{ratePPB: RateOne}
	n.clk.wall = segment{ratePPB: RateOne, base: s.wallBase}
	for _, o := range opts {
		o(n)
	}
	if err := n.fsync.Validate(); err != nil {
		panic("sim: fsync latency of " + name + ": " + err.Error())
	}
	n.fsyncBase = n.fsync
	s.nodes = append(s.nodes, n)
	s.net.grow(len(s.nodes))
	return n.id
}

// AddFreshNode adds a node built by make: the engine calls make again on
// every boot (the first start and each restart), so a restarted node is a
// new value and loses every volatile field by construction, whatever its
// Start forgets to reset. The durable state still comes through Start's
// restored bytes. Node(id) returns the current value.
func (s *Sim) AddFreshNode(name string, make func() Node, opts ...NodeOption) NodeID {
	id := s.AddNode(name, make(), opts...)
	s.nodes[id].fresh = make
	return id
}

// NumNodes returns the number of nodes.
func (s *Sim) NumNodes() int { return len(s.nodes) }

// NodeName returns a node's display name.
func (s *Sim) NodeName(id NodeID) string {
	if id < 0 || int(id) >= len(s.nodes) {
		return "none"
	}
	return s.nodes[id].name
}

// NodeByName returns the ID of the node with that name.
func (s *Sim) NodeByName(name string) (NodeID, bool) {
	for _, n := range s.nodes {
		if n.name == name {
			return n.id, true
		}
	}
	return None, false
}

// IsService reports whether the node was added with Service().
func (s *Sim) IsService(id NodeID) bool { return s.nodes[id].service }

// Node returns the Node value added under id (for tests and inspection).
func (s *Sim) Node(id NodeID) Node { return s.nodes[id].node }

// IsUp reports whether the node is running (not crashed).
func (s *Sim) IsUp(id NodeID) bool { return s.nodes[id].up }

// IsPaused reports whether the node's process is paused.
func (s *Sim) IsPaused(id NodeID) bool { return s.nodes[id].paused }

// Leading reports whether the node currently acts as leader, and its epoch
// and token, according to its own observations.
func (s *Sim) Leading(id NodeID) (leading bool, epoch, token int64) {
	n := s.nodes[id]
	return n.leading, n.epoch, n.token
}

// Leaders returns the nodes currently acting as leader, in ID order.
func (s *Sim) Leaders() []NodeID {
	var out []NodeID
	for _, n := range s.nodes {
		if n.leading {
			out = append(out, n.id)
		}
	}
	return out
}

// Clock returns a snapshot of a node's clocks at the current true time.
func (s *Sim) Clock(id NodeID) ClockState {
	n := s.nodes[id]
	return ClockState{
		Mono:        time.Duration(n.clk.mono.at(s.now)),
		Wall:        time.Unix(0, n.clk.wall.at(s.now)).UTC(),
		MonoRatePPB: n.clk.mono.ratePPB,
		WallRatePPB: n.clk.wall.ratePPB,
	}
}

// Durable returns a copy of the node's durable (completed) persisted state.
func (s *Sim) Durable(id NodeID) []byte {
	n := s.nodes[id]
	if !n.hasDisk {
		return nil
	}
	return append([]byte(nil), n.durable...)
}

func (n *nodeState) mono() int64 { return n.clk.mono.at(n.s.now) }
func (n *nodeState) wall() int64 { return n.clk.wall.at(n.s.now) }

// stamp fills the scratch record's header for an event about n.
func (n *nodeState) stamp(t RecordType) *Record {
	s := n.s
	s.rec = Record{At: s.now, Type: t, Node: n.id, Peer: None, Mono: time.Duration(n.mono()), Wall: n.wall()}
	return &s.rec
}

// boot calls Start with the durable state (nil if none).
func (n *nodeState) boot(restart bool) {
	if restart && n.fresh != nil {
		n.node = n.fresh()
	}
	n.up = true
	n.paused = false
	n.hook = nil // a layer hooks each incarnation from its Start
	r := n.stamp(RecStart)
	var restored []byte
	if n.hasDisk {
		restored = n.durable
		r.Detail = "restored"
		r.B = int64(len(restored))
	}
	if restart {
		r.A = 1
	}
	if n.diskLost {
		r.Fact, n.diskLost = FactDiskLost, false
	}
	n.s.emit()
	n.s.stats.Events++
	n.s.booting = n
	n.node.Start(n, restored)
	n.s.guard()
	n.s.booting = nil
}

// --- Env ---

func (n *nodeState) ID() NodeID         { return n.id }
func (n *nodeState) Name() string       { return n.name }
func (n *nodeState) Now() time.Duration { return time.Duration(n.mono()) }
func (n *nodeState) Wall() time.Time    { return time.Unix(0, n.wall()).UTC() }
func (n *nodeState) WallNanos() int64   { return n.wall() }
func (n *nodeState) Rand() *Rand        { return &n.rng }

func (n *nodeState) ActAsLeader(epoch, token int64) {
	n.leading, n.epoch, n.token = true, epoch, token
	r := n.stamp(RecLead)
	r.Epoch, r.Token = epoch, token
	n.s.emit()
	if n.hook != nil {
		n.hook.Lead(epoch, token)
	}
}

func (n *nodeState) StopLeading(why string) {
	n.stopLeading(why, FactNone)
	if n.hook != nil {
		n.hook.StopLead(why) // every call, as a wrapper of Env would see it
	}
}

// HookLeadership implements LeadershipHooker.
func (n *nodeState) HookLeadership(h LeadershipHook) bool {
	if n.hook != nil {
		return false
	}
	n.hook = h
	return true
}

// stopLeading records the end of the node's tenure with its typed cause.
func (n *nodeState) stopLeading(why string, f Fact) {
	if !n.leading {
		return
	}
	n.leading = false
	r := n.stamp(RecStepDown)
	r.Epoch, r.Token, r.Detail, r.Fact = n.epoch, n.token, why, f
	n.s.emit()
}

func (n *nodeState) BelieveLeader(leader NodeID, epoch int64) {
	r := n.stamp(RecBelieve)
	r.Peer, r.Epoch = leader, epoch
	n.s.emit()
}

func (n *nodeState) Effect(e Effect) {
	r := n.stamp(RecEffect)
	r.Name, r.Detail, r.Key, r.A, r.B, r.C, r.Fact = e.Name, e.Detail, e.Key, e.A, e.B, e.C, e.Fact
	n.s.emit()
}
