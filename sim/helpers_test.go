package sim_test

import (
	"time"

	"github.com/electsim/electsim/sim"
)

// Message kinds of the purpose-built test nodes.
var (
	kindPing = sim.RegisterKind("test.Ping")
	kindData = sim.RegisterKind("test.Data")
)

// seen is one thing a probe node observed, stamped with the true time (read
// from the test's Sim, which a real node cannot do) and the node's own clocks.
type seen struct {
	What    string // "start", "msg" or "timer"
	At      sim.Time
	Mono    time.Duration
	Wall    time.Time
	From    sim.NodeID
	Kind    sim.MsgKind
	A       int64
	Tag     int
	ID      sim.TimerID
	Restore string // restored bytes, for "start"
}

// probeLog outlives restarts: it is the test's notebook, not node state.
type probeLog struct {
	s      *sim.Sim
	events []seen
	starts int
}

func (l *probeLog) of(what string) []seen {
	var out []seen
	for _, e := range l.events {
		if e.What == what {
			out = append(out, e)
		}
	}
	return out
}

// probe is a scriptable recorder node: it logs every start, message and timer
// with true time and local clock readings, then runs the test's hook.
// Volatile counts handlers since the last Start; Start rebuilds the struct as
// the node contract requires (node.go).
type probe struct {
	log      *probeLog
	env      sim.Env
	onStart  func(p *probe, restored []byte)
	onMsg    func(p *probe, m sim.Message)
	onTimer  func(p *probe, id sim.TimerID, tag int)
	Volatile int
	Timers   map[int]sim.TimerID // by tag, volatile
}

func newProbe(l *probeLog) *probe { return &probe{log: l} }

func (p *probe) note(e seen) {
	e.At = p.log.s.Now()
	e.Mono = p.env.Now()
	e.Wall = p.env.Wall()
	p.log.events = append(p.log.events, e)
}

func (p *probe) Start(env sim.Env, restored []byte) {
	*p = probe{log: p.log, env: env, onStart: p.onStart, onMsg: p.onMsg, onTimer: p.onTimer, Timers: map[int]sim.TimerID{}}
	p.note(seen{What: "start", Restore: string(restored), A: int64(p.log.starts)})
	p.log.starts++
	if p.onStart != nil {
		p.onStart(p, restored)
	}
}

func (p *probe) OnMessage(m sim.Message) {
	p.Volatile++
	p.note(seen{What: "msg", From: m.From, Kind: m.Kind, A: m.A})
	if p.onMsg != nil {
		p.onMsg(p, m)
	}
}

func (p *probe) OnTimer(id sim.TimerID, tag int) {
	p.Volatile++
	p.note(seen{What: "timer", Tag: tag, ID: id})
	if p.onTimer != nil {
		p.onTimer(p, id, tag)
	}
}

// set arms a timer and remembers its ID under tag.
func (p *probe) set(d time.Duration, tag int) sim.TimerID {
	id := p.env.SetTimer(d, tag)
	p.Timers[tag] = id
	return id
}

// sendPlan is one message a sender probe sends: Data{A} to To, After its
// start (monotonic time).
type sendPlan struct {
	After time.Duration
	To    sim.NodeID
	A     int64
}

// sender returns a probe that sends the planned messages at the planned
// (monotonic) times after it starts, using timer tags 1000 and up.
func sender(l *probeLog, plan []sendPlan) *probe {
	p := newProbe(l)
	p.onStart = func(p *probe, _ []byte) {
		for i, sp := range plan {
			p.env.SetTimer(sp.After, 1000+i)
		}
	}
	p.onTimer = func(p *probe, _ sim.TimerID, tag int) {
		if tag >= 1000 {
			sp := plan[tag-1000]
			p.env.Send(sim.Message{Kind: kindData, To: sp.To, A: sp.A})
		}
	}
	return p
}

// pingPong bounces a counter between two nodes forever: the initiator sends
// at Start, and every receipt is answered with A+1.
type pingPong struct {
	env       sim.Env
	peer      sim.NodeID
	initiator bool
	last      int64
}

func (n *pingPong) Start(env sim.Env, _ []byte) {
	*n = pingPong{env: env, peer: n.peer, initiator: n.initiator}
	if n.initiator {
		env.Send(sim.Message{Kind: kindPing, To: n.peer, A: 1})
	}
}

func (n *pingPong) OnMessage(m sim.Message) {
	n.last = m.A
	n.env.Send(sim.Message{Kind: kindPing, To: n.peer, A: m.A + 1})
}

func (n *pingPong) OnTimer(sim.TimerID, int) {}

// ticker re-arms a timer every period forever.
type ticker struct {
	env    sim.Env
	period time.Duration
	fired  int
}

func (n *ticker) Start(env sim.Env, _ []byte) {
	*n = ticker{env: env, period: n.period}
	env.SetTimer(n.period, 0)
}

func (n *ticker) OnMessage(sim.Message) {}

func (n *ticker) OnTimer(sim.TimerID, int) {
	n.fired++
	n.env.SetTimer(n.period, 0)
}

// idle does nothing at all.
type idle struct{}

func (idle) Start(sim.Env, []byte)    {}
func (idle) OnMessage(sim.Message)    {}
func (idle) OnTimer(sim.TimerID, int) {}

// records filters a recorder's records by type (and node, unless sim.None).
func records(r *sim.Recorder, t sim.RecordType, node sim.NodeID) []sim.Record {
	var out []sim.Record
	for _, rec := range r.Records {
		if rec.Type == t && (node == sim.None || rec.Node == node) {
			out = append(out, rec)
		}
	}
	return out
}

// ms is a true time in milliseconds.
func ms(n int64) sim.Time { return sim.Time(n * int64(time.Millisecond)) }
