// Package hpe is a small election of its own, written outside electsim to
// show how an algorithm plugs in: heartbeat-priority election. Every
// candidate broadcasts a heartbeat each Heartbeat; a candidate that has heard
// from no lower ID and no leader for Timeout (by its own monotonic clock,
// counted from its start) leads, with an epoch no other candidate can use
// (generation·N + its position + 1, the generation persisted); a leader that
// hears a lower ID steps down, and the lower one waits out its heartbeats
// before leading. With every message arriving and every node running, two
// never lead at once, crashes and restarts included; it has split-brains
// under partitions and pauses: exactly what electsim's checks are for.
package hpe

import (
	"encoding/binary"
	"time"

	"github.com/electsim/electsim/registry"
	"github.com/electsim/electsim/sim"
)

// KindHeartbeat is the only message: "I am alive" (Term = the sender's
// epoch if it leads, else 0).
var KindHeartbeat = sim.RegisterKind("hpe.Heartbeat", sim.Fields{Term: "epoch"})

// Config are the algorithm's parameters.
type Config struct {
	Heartbeat time.Duration
	Timeout   time.Duration
}

// DefaultConfig is 50 ms heartbeats and a 200 ms timeout.
func DefaultConfig() Config {
	return Config{Heartbeat: 50 * time.Millisecond, Timeout: 200 * time.Millisecond}
}

// Validate checks the configuration; its errors name the Go fields.
func (c Config) Validate() error { return c.validate(registry.GoName) }

// validate is Validate with fields named by n: Build passes the scenario's
// words (registry.NameBy(fieldNames)), so a scenario error reads
// "timeout (100ms) must exceed heartbeat (200ms)" at the timeout key.
func (c Config) validate(n registry.Namer) error {
	if c.Heartbeat <= 0 {
		return registry.Fail("hpe", []string{"Heartbeat"}, "%s must be positive", n("Heartbeat"))
	}
	if c.Timeout <= c.Heartbeat {
		return registry.Fail("hpe", []string{"Timeout", "Heartbeat"}, "%s (%v) must exceed %s (%v)", n("Timeout"), c.Timeout, n("Heartbeat"), c.Heartbeat)
	}
	return nil
}

// fieldNames are the scenario words for Config's fields.
var fieldNames = map[string]string{"Heartbeat": "heartbeat", "Timeout": "timeout"}

// Node is one candidate. It implements sim.Node.
type Node struct {
	cfg   Config
	peers []sim.NodeID
	env   sim.Env
	self  int
	gen   uint64          // persisted: times this node started leading
	heard []time.Duration // per peer position: last heartbeat (monotonic)
	ruled time.Duration   // last heartbeat of another leader (monotonic)
	epoch int64           // epoch led, 0 if not leading
}

// New returns a candidate; peers are every candidate's ID, ascending.
func New(cfg Config, peers []sim.NodeID) *Node { return &Node{cfg: cfg, peers: peers} }

// Start implements sim.Node: volatile state is rebuilt, the generation
// restored.
func (n *Node) Start(env sim.Env, restored []byte) {
	*n = Node{cfg: n.cfg, peers: n.peers, env: env, self: -1}
	for i, p := range n.peers {
		if p == env.ID() {
			n.self = i
		}
	}
	if len(restored) == 8 {
		n.gen = binary.BigEndian.Uint64(restored)
	}
	// Silence counts from the start: a candidate that has just (re)started
	// has heard nobody yet, and leading at once would overlap the leader it
	// has not had time to hear from.
	n.heard = make([]time.Duration, len(n.peers))
	for i := range n.heard {
		n.heard[i] = env.Now()
	}
	n.ruled = env.Now()
	env.SetTimer(n.cfg.Heartbeat, 1)
}

// OnMessage implements sim.Node.
func (n *Node) OnMessage(m sim.Message) {
	from := -1
	for i, p := range n.peers {
		if p == m.From {
			from = i
		}
	}
	if from < 0 || m.Kind != KindHeartbeat {
		return
	}
	n.heard[from] = n.env.Now()
	if m.Term != 0 {
		n.ruled = n.env.Now()
	}
	if from < n.self && n.epoch != 0 {
		n.epoch = 0
		n.env.StopLeading("a lower candidate is alive")
	}
	if from > n.self && n.epoch != 0 && m.Term > n.epoch {
		// A higher candidate led while this one was cut off from it: its
		// epoch (the fencing token the resource now holds) is above ours,
		// so every write of ours would be refused as stale. Lead again in
		// a generation above it.
		n.gen = max(n.gen, uint64(m.Term)/uint64(len(n.peers)))
		n.lead()
	}
	if m.Term != 0 && from < n.self {
		n.env.BelieveLeader(m.From, m.Term)
	}
}

// OnTimer implements sim.Node: heartbeat, then judge.
func (n *Node) OnTimer(sim.TimerID, int) {
	for _, p := range n.peers {
		if p != n.env.ID() {
			n.env.Send(sim.Message{Kind: KindHeartbeat, To: p, Term: n.epoch})
		}
	}
	if n.epoch == 0 && !n.othersAlive() {
		n.lead()
	}
	n.env.SetTimer(n.cfg.Heartbeat, 1)
}

// lead starts a tenure in the next generation, persisted first.
func (n *Node) lead() {
	n.gen++
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], n.gen)
	n.env.Persist(b[:])
	n.epoch = int64(n.gen)*int64(len(n.peers)) + int64(n.self) + 1
	n.env.ActAsLeader(n.epoch, n.epoch)
	n.env.BelieveLeader(n.env.ID(), n.epoch)
}

// othersAlive reports whether a lower candidate or a leader was heard
// within Timeout. Waiting for a leader too is what keeps a restarted lower
// candidate from leading beside the one that took over: that one steps down
// on the lower one's first heartbeat, and its leadership is then Timeout
// old before the lower one leads.
func (n *Node) othersAlive() bool {
	now := n.env.Now()
	if now-n.ruled < n.cfg.Timeout {
		return true
	}
	for i := 0; i < n.self; i++ {
		if now-n.heard[i] < n.cfg.Timeout {
			return true
		}
	}
	return false
}

// TimerName implements sim.TimerNamer.
func (n *Node) TimerName(int) string { return "hpe.heartbeat" }

// Descriptor describes the algorithm to electsim: scenarios write
// algorithm: {name: hpe, heartbeat: 50ms, timeout: 200ms..400ms}.
func Descriptor() registry.Algorithm {
	return registry.Algorithm{
		Name: "hpe", Doc: "heartbeat-priority election (examples/custom-election)", Package: "hpe",
		FieldNames: fieldNames,
		Params: []registry.Param{
			{Key: "heartbeat", Kind: registry.Duration, Doc: "heartbeat interval, default 50ms"},
			{Key: "timeout", Kind: registry.Duration, Doc: "silence of every lower candidate before leading, default 200ms"},
		},
		Build: func(v registry.Values, _ int, _ *sim.Rand) (registry.Factory, error) {
			c := DefaultConfig()
			registry.SetDuration(v, "heartbeat", &c.Heartbeat)
			registry.SetDuration(v, "timeout", &c.Timeout)
			if err := c.validate(registry.NameBy(fieldNames)); err != nil {
				return nil, err
			}
			return func(p []sim.NodeID, _ registry.Services) sim.Node { return New(c, p) }, nil
		},
	}
}
