package sim_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/electsim/electsim/sim"
)

// fuzzOp is one fault of a fuzz program: at true time At, operation Op on
// node Node with argument Arg.
type fuzzOp struct {
	At   time.Duration
	Op   uint8
	Node int
	Arg  uint8
}

// The fault operations of a fuzz program.
const (
	fopPause = iota
	fopResume
	fopCrash
	fopRestartKeep
	fopRestartWipe
	fopPartition
	fopHeal
	fopRate
	fopMonoRate
	fopWallRate
	fopStep
	fopCut
	fopIsolate
	fopOneWay
	fopBridge
	fopLink
	fopAllLinks
	fopFsync
	fopCount
)

// fuzzProgram is what FuzzEngine decodes its input into: a small cluster, a
// network, budgets and a list of faults.
type fuzzProgram struct {
	Nodes       int // vote nodes (votenode_test.go)
	PingPong    bool
	Persistence bool
	Link        sim.LinkConfig
	Fsync       sim.Dist
	MaxEvents   uint64
	MaxTime     time.Duration
	Horizon     time.Duration
	Ops         []fuzzOp
}

// bytesReader yields the input's bytes, then zeros.
type bytesReader struct{ b []byte }

func (r *bytesReader) next() byte {
	if len(r.b) == 0 {
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func fms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

// latency decodes a valid latency distribution from two bytes.
func latency(kind, x byte) sim.Dist {
	lo := fms(int(x % 8))
	hi := lo + fms(int(x/8%16))
	switch kind % 4 {
	case 0:
		return sim.Constant(lo)
	case 1:
		return sim.Uniform(lo, hi)
	case 2:
		return sim.Exponential(lo, lo+fms(int(x/8%16)/2), hi+fms(10))
	}
	return sim.Normal(lo+fms(2), fms(int(x/8%4)), lo, hi+fms(5))
}

func prob(x byte) float64 { return float64(x%8) / 20 } // 0 .. 0.35

// decodeProgram turns fuzz bytes into a program; every value it produces is
// valid for the engine, so a panic is an engine bug.
func decodeProgram(data []byte) fuzzProgram {
	r := &bytesReader{b: data}
	flags := r.next()
	p := fuzzProgram{
		Nodes:       1 + int(r.next()%6),
		PingPong:    flags&1 != 0,
		Persistence: flags&2 == 0,
		Link:        sim.LinkConfig{Latency: latency(r.next(), r.next()), Drop: prob(r.next()), Duplicate: prob(r.next()), FIFO: flags&4 != 0},
		Fsync:       sim.Uniform(0, fms(int(r.next()%5))),
		MaxEvents:   200 + uint64(r.next())*80,
		MaxTime:     fms(500 + int(r.next())*40),
	}
	p.Horizon = fms(int(r.next()) * 60) // up to 15.3s: beyond MaxTime at times
	for len(r.b) > 0 {
		p.Ops = append(p.Ops, fuzzOp{At: fms(int(r.next()) * 50), Op: r.next() % fopCount, Node: int(r.next()), Arg: r.next()})
	}
	return p
}

// build assembles the program's simulation; its faults are scheduled with At.
func (p fuzzProgram) build(sinks ...sim.Sink) (*sim.Sim, []sim.NodeID) {
	s := sim.New(sim.Config{Seed: uint64(len(p.Ops))*7919 + uint64(p.Nodes), MaxEvents: p.MaxEvents, MaxTime: p.MaxTime, Link: p.Link})
	for _, k := range sinks {
		if a, ok := k.(interface{ attach(*sim.Sim) }); ok {
			a.attach(s)
		}
		s.AddSink(k)
	}
	ids := make([]sim.NodeID, p.Nodes)
	for i := range ids {
		ids[i] = sim.NodeID(i)
	}
	for i := range ids {
		v := newVoteNode(ids)
		v.persistence = p.Persistence
		s.AddNode(fmt.Sprintf("v%d", i), v, sim.Fsync(p.Fsync))
	}
	all := append([]sim.NodeID(nil), ids...)
	if p.PingPong {
		a := sim.NodeID(p.Nodes)
		s.AddNode("ping", &pingPong{peer: a + 1, initiator: true})
		s.AddNode("pong", &pingPong{peer: a})
		all = append(all, a, a+1)
	}
	n := len(all)
	for _, op := range p.Ops {
		op := op
		id := all[op.Node%n]
		other := all[int(op.Arg)%n]
		s.At(sim.Time(op.At), func() {
			switch op.Op {
			case fopPause:
				s.Pause(id)
			case fopResume:
				s.Resume(id)
			case fopCrash:
				s.Crash(id)
			case fopRestartKeep:
				s.Restart(id, true)
			case fopRestartWipe:
				s.Restart(id, false)
			case fopPartition:
				var a, b []sim.NodeID
				for i, x := range all {
					if op.Arg>>(i%8)&1 != 0 {
						a = append(a, x)
					} else {
						b = append(b, x)
					}
				}
				s.Partition(a, b)
			case fopHeal:
				s.Heal()
			case fopRate:
				s.SetRate(id, sim.Rate(0.25+float64(op.Arg)/64))
			case fopMonoRate:
				s.SetMonoRate(id, sim.Rate(0.25+float64(op.Arg)/64))
			case fopWallRate:
				s.SetWallRate(id, sim.Rate(0.25+float64(op.Arg)/64))
			case fopStep:
				s.StepWall(id, time.Duration(int8(op.Arg))*100*time.Millisecond)
			case fopCut:
				s.Cut(id, other)
			case fopIsolate:
				s.Isolate(id)
			case fopOneWay:
				s.OneWay([]sim.NodeID{id}, []sim.NodeID{other})
			case fopBridge:
				s.Bridge(all[:n/2], all[n/2:], id)
			case fopLink:
				s.SetLink(id, other, sim.LinkConfig{Latency: latency(op.Arg, op.Arg>>2), Drop: prob(op.Arg >> 3), Duplicate: prob(op.Arg >> 5), FIFO: op.Arg&1 != 0})
			case fopAllLinks:
				s.SetAllLinks(sim.LinkConfig{Latency: latency(op.Arg>>1, op.Arg), Drop: prob(op.Arg >> 2), Duplicate: prob(op.Arg >> 4), FIFO: op.Arg&1 != 0})
			case fopFsync:
				s.SetFsync(id, sim.Uniform(0, fms(int(op.Arg%20))))
			}
		})
	}
	return s, all
}

// run executes the program to its horizon, then on to quiescence or a
// budget, and checks the engine's invariants.
func (p fuzzProgram) run(t *testing.T, sinks ...sim.Sink) *sim.Sim {
	s, _ := p.build(sinks...)
	o := s.RunUntil(sim.Time(p.Horizon))
	switch {
	case o == sim.OutcomeHorizon:
		if p.Horizon > p.MaxTime || s.Now() != sim.Time(p.Horizon) {
			t.Fatalf("horizon outcome at %v (horizon %v, max time %v)", s.Now(), p.Horizon, p.MaxTime)
		}
	case o.Exhausted():
	default:
		t.Fatalf("RunUntil ended with %v", o)
	}
	o2 := s.Run()
	if o2 != sim.OutcomeQuiescent && !o2.Exhausted() {
		t.Fatalf("Run ended with %v", o2)
	}
	s.End()
	if s.Now() > sim.Time(p.MaxTime) {
		t.Fatalf("ran to %v past MaxTime %v", s.Now(), p.MaxTime)
	}
	if got := sim.Popped(s); got > p.MaxEvents || (o2 == sim.OutcomeEventBudget && got != p.MaxEvents) {
		t.Fatalf("took %d events with budget %d (outcome %v)", got, p.MaxEvents, o2)
	}
	// Every message sent (or duplicated) was delivered, dropped, or is still
	// held by the engine.
	st := s.Stats()
	var in, out uint64
	for k := range st.Sent {
		in += st.Sent[k] + st.Duplicated[k]
		out += st.Delivered[k] + st.Dropped[k]
	}
	if held := uint64(sim.InFlight(s)); in != out+held {
		t.Fatalf("sent + duplicated = %d, but delivered + dropped = %d with %d in flight", in, out, held)
	}
	var reasons uint64
	for _, n := range st.DropReasons {
		reasons += n
	}
	var dropped uint64
	for _, n := range st.Dropped {
		dropped += n
	}
	if reasons != dropped {
		t.Fatalf("%d drops by reason, %d by kind", reasons, dropped)
	}
	return s
}

// orderSink checks, record by record, what the engine promises about its
// trace: true time never goes back, and only a running, unpaused process
// gets a message or a timer (docs/engine.md, pauses and crashes).
type orderSink struct {
	s    *sim.Sim
	last sim.Time
	err  string
}

func (o *orderSink) attach(s *sim.Sim) { o.s = s }

func (o *orderSink) Record(r *sim.Record) {
	if o.err != "" {
		return
	}
	switch {
	case r.At < o.last:
		o.err = fmt.Sprintf("record %v at %v after one at %v", r.Type, r.At, o.last)
	case (r.Type == sim.RecDeliver || r.Type == sim.RecTimer) && (!o.s.IsUp(r.Node) || o.s.IsPaused(r.Node)):
		o.err = fmt.Sprintf("%v to %s at %v while it is down or paused", r.Type, o.s.NodeName(r.Node), r.At)
	}
	o.last = r.At
}

// FuzzEngine runs random fault programs on the Raft-like vote cluster
// (votenode_test.go), optionally with a ping-pong pair that floods the queue:
// pauses, resumes, crashes, restarts with and without the disk, partitions,
// heals, clock rates and steps, cuts, one-way and bridge partitions, link and
// disk changes, under small event and time budgets. No program may panic; a
// run ends at its horizon or with a budget outcome, never past MaxTime or
// MaxEvents; every message is accounted for (sent + duplicated = delivered +
// dropped + in flight); and the same program gives the same trace hash and
// counters twice, with a recording sink or without, and its trace never
// goes back in time nor hands a message or timer to a process that is down
// or paused (docs/engine.md, "Running, budgets and outcomes" and "Randomness"). Run it with go test ./sim -run '^$' -fuzz FuzzEngine.
func FuzzEngine(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 4, 1, 40, 2, 1, 3, 100, 200, 100, 4, fopCrash, 1, 0, 10, fopRestartKeep, 1, 0})
	f.Add([]byte{1, 2, 3, 9, 0, 0, 2, 255, 255, 255, 2, fopPause, 0, 0, 20, fopResume, 0, 0, 5, fopPartition, 0, 5, 30, fopHeal, 0, 0})
	f.Add([]byte{6, 5, 2, 77, 5, 5, 4, 30, 40, 250, 1, fopRate, 2, 200, 3, fopStep, 1, 0x80, 7, fopBridge, 3, 0, 9, fopAllLinks, 0, 0xff, 12, fopRestartWipe, 4, 0})
	f.Add([]byte{3, 3, 0, 0, 0, 0, 0, 0, 0, 30, 0, fopPause, 0, 0, 0, fopCrash, 0, 0, 0, fopRestartKeep, 0, 0, 0, fopResume, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 400 {
			return // keep each program small; the budgets bound it anyway
		}
		p := decodeProgram(data)
		a := p.run(t)
		rec, order := &sim.Recorder{}, &orderSink{}
		b := p.run(t, rec, order)
		if order.err != "" {
			t.Fatal(order.err)
		}
		if a.TraceHash() != b.TraceHash() || *a.Stats() != *b.Stats() {
			t.Fatalf("the same program twice: hash %s vs %s (the second with a recorder)", a.TraceHashHex(), b.TraceHashHex())
		}
		if n := len(rec.Records); n == 0 || rec.Records[n-1].Type != sim.RecEnd {
			t.Fatalf("the trace does not end with an end record")
		}
	})
}

// The program decoder's own check: the seed corpus decodes to what it says.
func TestDecodeProgram(t *testing.T) {
	p := decodeProgram([]byte{0, 4, 1, 40, 2, 1, 3, 100, 200, 100, 4, fopCrash, 1, 0})
	if p.Nodes != 5 || !p.Persistence || p.PingPong || p.MaxEvents != 200+100*80 || p.MaxTime != fms(500+200*40) || p.Horizon != fms(6000) {
		t.Fatalf("decoded %+v", p)
	}
	if len(p.Ops) != 1 || p.Ops[0] != (fuzzOp{At: fms(200), Op: fopCrash, Node: 1}) {
		t.Fatalf("ops %+v", p.Ops)
	}
}
