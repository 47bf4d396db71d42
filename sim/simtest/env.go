// Package simtest drives one electsim node by hand, for step-level tests of
// an algorithm: deliver this message, fire this timer, advance this clock,
// crash and restart, and read back what the node did, one line per action.
// It is the harness of the datadriven interaction scripts in the style of
// etcd raft's (testdata/*.txt beside an algorithm, rewritten with
// go test -rewrite); see docs/testing.md.
//
//	e := simtest.New(0, []string{"n1", "n2", "n3"}, 1)
//	n := raftelect.MustNew(cfg, ids)
//	e.Boot(n)
//	e.Fire("raft.election")        // the armed timer with that name
//	fmt.Print(e.Output())          // persist, sends, timers, observations
//
// Nothing runs by itself: time moves only with Advance, and timers fire only
// with Fire, so a script states every step of the rule it checks.
package simtest

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/electsim/electsim/sim"
)

// Env is a recording sim.Env for one node. It is not safe for concurrent
// use (neither is a node).
type Env struct {
	id      sim.NodeID
	names   []string
	seed    uint64
	node    sim.Node
	mono    time.Duration
	wall    time.Time
	rng     sim.Rand
	timers  map[sim.TimerID]timer // lookups only; listings sort by ID
	nextID  sim.TimerID
	durable []byte
	hasDisk bool
	boots   int
	sent    []sim.Message
	out     strings.Builder
}

type timer struct {
	tag int
	at  time.Duration // monotonic deadline
}

// New returns an environment for node id of a cluster whose nodes are named
// names (index = NodeID); seed seeds the node's random stream.
func New(id sim.NodeID, names []string, seed uint64) *Env {
	return &Env{id: id, names: names, seed: seed, timers: map[sim.TimerID]timer{},
		wall: sim.DefaultWallStart}
}

// Boot starts node n (Start with the durable state, if any, as after a
// restart) and records what it did.
func (e *Env) Boot(n sim.Node) {
	e.node = n
	e.boots++
	e.rng.Reset(e.seed, fmt.Sprintf("node/%d/boot%d", e.id, e.boots))
	e.timers = map[sim.TimerID]timer{}
	var restored []byte
	if e.hasDisk {
		restored = append([]byte(nil), e.durable...)
	}
	n.Start(e, restored)
}

// Crash forgets the node's volatile state and timers (its durable state
// stays for the next Boot) and records it.
func (e *Env) Crash() {
	e.timers = map[sim.TimerID]timer{}
	e.node = nil
	e.printf("crashed\n")
}

// Deliver hands m to the node (m.To is set to the node).
func (e *Env) Deliver(m sim.Message) {
	m.To = e.id
	e.node.OnMessage(m)
}

// Advance moves the node's clocks forward by d. Timers that come due are
// not fired (use Fire): the script says when they fire.
func (e *Env) Advance(d time.Duration) {
	e.mono += d
	e.wall = e.wall.Add(d)
}

// Fire fires the armed timer named name (TimerNamer, or "tag=N"), moving
// the clock to its deadline if that is later, and records what the node
// did. It fails if no such timer is armed.
func (e *Env) Fire(name string) error {
	var ids []sim.TimerID
	for id, t := range e.timers {
		if e.timerName(t.tag) == name {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return fmt.Errorf("no armed timer %q (armed: %s)", name, e.Timers())
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	id := ids[0]
	t := e.timers[id]
	delete(e.timers, id)
	if t.at > e.mono {
		e.Advance(t.at - e.mono)
	}
	e.node.OnTimer(id, t.tag)
	return nil
}

// Timers lists the armed timers with their time left, by ID.
func (e *Env) Timers() string {
	var ids []sim.TimerID
	for id := range e.timers {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	var parts []string
	for _, id := range ids {
		t := e.timers[id]
		parts = append(parts, fmt.Sprintf("%s in %v", e.timerName(t.tag), t.at-e.mono))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// Durable returns the node's durable state.
func (e *Env) Durable() []byte { return e.durable }

// Output returns what the node did since the last call, one action a line.
func (e *Env) Output() string {
	s := e.out.String()
	e.out.Reset()
	return s
}

func (e *Env) printf(format string, args ...any) { fmt.Fprintf(&e.out, format, args...) }

func (e *Env) name(id sim.NodeID) string {
	if id == sim.None {
		return "none"
	}
	if id >= 0 && int(id) < len(e.names) {
		return e.names[id]
	}
	return fmt.Sprintf("node%d", id)
}

func (e *Env) timerName(tag int) string {
	if tn, ok := e.node.(sim.TimerNamer); ok {
		if n := tn.TimerName(tag); n != "" {
			return n
		}
	}
	return fmt.Sprintf("tag=%d", tag)
}

// FormatMessage prints a message's kind, ends and non-zero fields, by the
// names its kind registered (sim.Fields) or else the slots' own, as the
// scripts show it: "raft.RequestVote n1->n2 term=3 last_log_index=7
// last_log_term=2", "raft.RequestVoteResp n2->n1 term=3 vote_granted".
func (e *Env) FormatMessage(m sim.Message) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s->%s", m.Kind, e.name(m.From), e.name(m.To))
	names := m.Kind.Fields()
	pick := func(name, slot string) string {
		if name != "" {
			return name
		}
		return slot
	}
	for _, f := range []struct {
		k string
		v int64
	}{{pick(names.Term, "term"), m.Term}, {pick(names.Index, "index"), m.Index}, {pick(names.A, "a"), m.A}, {pick(names.B, "b"), m.B}} {
		if f.v != 0 {
			fmt.Fprintf(&b, " %s=%d", f.k, f.v)
		}
	}
	if m.Flag {
		b.WriteString(" " + pick(names.Flag, "flag"))
	}
	if m.Body != nil {
		fmt.Fprintf(&b, " body=%v", m.Body)
	}
	return b.String()
}

// --- sim.Env ---

// ID implements sim.Env.
func (e *Env) ID() sim.NodeID { return e.id }

// Name implements sim.Env.
func (e *Env) Name() string { return e.name(e.id) }

// Now implements sim.Env.
func (e *Env) Now() time.Duration { return e.mono }

// Wall implements sim.Env.
func (e *Env) Wall() time.Time { return e.wall }

// WallNanos implements sim.Env.
func (e *Env) WallNanos() int64 { return e.wall.UnixNano() }

// Rand implements sim.Env.
func (e *Env) Rand() *sim.Rand { return &e.rng }

// Send implements sim.Env: it records the message.
func (e *Env) Send(m sim.Message) {
	m.From = e.id
	e.sent = append(e.sent, m)
	e.printf("send %s\n", e.FormatMessage(m))
}

// LastSent returns the last message the node sent (to build a reply).
func (e *Env) LastSent() (sim.Message, bool) {
	if len(e.sent) == 0 {
		return sim.Message{}, false
	}
	return e.sent[len(e.sent)-1], true
}

// SetTimer implements sim.Env.
func (e *Env) SetTimer(d time.Duration, tag int) sim.TimerID {
	e.nextID++
	e.timers[e.nextID] = timer{tag: tag, at: e.mono + d}
	e.printf("timer %s in %v\n", e.timerName(tag), d)
	return e.nextID
}

// ResetTimer implements sim.Env.
func (e *Env) ResetTimer(id sim.TimerID, d time.Duration) bool {
	t, ok := e.timers[id]
	if !ok {
		return false
	}
	t.at = e.mono + d
	e.timers[id] = t
	e.printf("timer %s reset to %v\n", e.timerName(t.tag), d)
	return true
}

// CancelTimer implements sim.Env.
func (e *Env) CancelTimer(id sim.TimerID) bool {
	t, ok := e.timers[id]
	if !ok {
		return false
	}
	delete(e.timers, id)
	e.printf("timer %s cancelled\n", e.timerName(t.tag))
	return true
}

// Persist implements sim.Env: the write is durable at once (a script
// that needs a lost write crashes before persisting).
func (e *Env) Persist(data []byte) {
	e.durable = append(e.durable[:0], data...)
	e.hasDisk = true
	e.printf("persist %d bytes\n", len(data))
}

// ActAsLeader implements sim.Env.
func (e *Env) ActAsLeader(epoch, token int64) { e.printf("lead epoch=%d token=%d\n", epoch, token) }

// StopLeading implements sim.Env.
func (e *Env) StopLeading(why string) { e.printf("step down: %s\n", why) }

// BelieveLeader implements sim.Env.
func (e *Env) BelieveLeader(leader sim.NodeID, epoch int64) {
	e.printf("believe %s leads epoch %d\n", e.name(leader), epoch)
}

// Effect implements sim.Env.
func (e *Env) Effect(x sim.Effect) {
	e.printf("effect %s", x.Name)
	if x.Detail != "" {
		e.printf(" %q", x.Detail)
	}
	e.printf(" a=%d b=%d c=%d\n", x.A, x.B, x.C)
}
