package sim_test

import (
	"encoding/binary"
	"fmt"
	"time"

	"github.com/electsim/electsim/sim"
)

// The worked example of docs/engine.md ("The node contract"): two nodes written
// against sim.Node and sim.Env, a link cut and a crash with persisted state.

// Message kinds are registered once, at package initialisation.
var (
	pingPongKindPing = sim.RegisterKind("example.Ping")
	pingPongKindPong = sim.RegisterKind("example.Pong")
)

// pingPongPinger sends a Ping every Period of its own monotonic clock and
// prints the round-trip time of every Pong.
type pingPongPinger struct {
	// configuration: survives restarts because Start copies it
	Peer   sim.NodeID
	Period time.Duration

	// volatile state: rebuilt by Start
	env  sim.Env
	next int64 // sequence number of the next Ping
}

// Start implements sim.Node. It rebuilds all volatile state, keeping only the
// configuration, and arms the first timer.
func (n *pingPongPinger) Start(env sim.Env, _ []byte) {
	*n = pingPongPinger{Peer: n.Peer, Period: n.Period, env: env, next: 1}
	env.SetTimer(n.Period, 0)
}

// OnTimer implements sim.Node: timers are one-shot, so re-arm, then ping. The
// Ping carries the pinger's own clock reading, which the Pong echoes back.
func (n *pingPongPinger) OnTimer(sim.TimerID, int) {
	n.env.SetTimer(n.Period, 0)
	n.env.Send(sim.Message{Kind: pingPongKindPing, To: n.Peer, Index: n.next, A: int64(n.env.Now())})
	n.next++
}

// OnMessage implements sim.Node.
func (n *pingPongPinger) OnMessage(m sim.Message) {
	rtt := n.env.Now() - time.Duration(m.A)
	fmt.Printf("%s at mono %v: pong %d (answered %d) rtt %v\n", n.env.Name(), n.env.Now(), m.Index, m.B, rtt)
}

// pingPongPonger answers every Ping and counts the answers durably, so the
// count survives a crash.
type pingPongPonger struct {
	env      sim.Env
	answered int64
	buf      [8]byte
}

// Start implements sim.Node: the count comes back from the persisted bytes.
func (n *pingPongPonger) Start(env sim.Env, restored []byte) {
	*n = pingPongPonger{env: env}
	if len(restored) == 8 {
		n.answered = int64(binary.LittleEndian.Uint64(restored))
	}
}

// OnMessage implements sim.Node. The Pong is sent after Persist, so it leaves
// only once the write is durable (the node's fsync latency later).
func (n *pingPongPonger) OnMessage(m sim.Message) {
	n.answered++
	binary.LittleEndian.PutUint64(n.buf[:], uint64(n.answered))
	n.env.Persist(n.buf[:])
	n.env.Send(sim.Message{Kind: pingPongKindPong, To: m.From, Index: m.Index, A: m.A, B: n.answered})
}

// OnTimer implements sim.Node; the ponger sets no timers.
func (n *pingPongPonger) OnTimer(sim.TimerID, int) {}

// pingPongPrinter is a trace sink that prints drops, faults and lifecycle
// records, stamped with true time (the nodes print their own clock).
type pingPongPrinter struct{ s *sim.Sim }

// Record implements sim.Sink.
func (p pingPongPrinter) Record(r *sim.Record) {
	switch r.Type {
	case sim.RecDrop:
		fmt.Printf("%v drop %v %s->%s: %v\n", r.At, r.Kind, p.s.NodeName(r.Peer), p.s.NodeName(r.Node), r.Reason)
	case sim.RecFault:
		fmt.Printf("%v fault %s: %s\n", r.At, r.Name, r.Detail)
	case sim.RecCrash:
		fmt.Printf("%v crash %s\n", r.At, p.s.NodeName(r.Node))
	case sim.RecStart:
		if r.A == 1 {
			fmt.Printf("%v restart %s (restored %d bytes)\n", r.At, p.s.NodeName(r.Node), r.B)
		}
	}
}

// Example_pingPong runs one simulated second: 5 ms links, a ponger whose disk
// takes 2 ms per write (so every round trip is 5+2+5 = 12 ms), the
// ponger→pinger link cut for 200 ms, and a crash in the middle of a write.
func Example_pingPong() {
	s := sim.New(sim.Config{Seed: 1, Link: sim.LinkConfig{Latency: sim.Constant(5 * time.Millisecond)}})
	pinger := s.AddNode("pinger", &pingPongPinger{Peer: 1, Period: 100 * time.Millisecond})
	ponger := s.AddNode("ponger", &pingPongPonger{}, sim.Fsync(sim.Constant(2*time.Millisecond)))
	s.AddSink(pingPongPrinter{s})

	s.At(sim.Time(250*time.Millisecond), func() { s.Cut(ponger, pinger) })
	s.At(sim.Time(450*time.Millisecond), func() { s.Connect(ponger, pinger) })
	s.At(sim.Time(606*time.Millisecond), func() { s.Crash(ponger) }) // Ping 6's write is due at 607 ms
	s.At(sim.Time(750*time.Millisecond), func() { s.Restart(ponger, true) })

	fmt.Println("outcome:", s.RunUntil(sim.Time(time.Second)))
	st := s.Stats()
	fmt.Println("pings sent:", st.Sent[pingPongKindPing], "delivered:", st.Delivered[pingPongKindPing])
	fmt.Println("pongs sent:", st.Sent[pingPongKindPong], "delivered:", st.Delivered[pingPongKindPong])
	fmt.Println("answered (durable):", binary.LittleEndian.Uint64(s.Durable(ponger)))

	// Output:
	// pinger at mono 112ms: pong 1 (answered 1) rtt 12ms
	// pinger at mono 212ms: pong 2 (answered 2) rtt 12ms
	// 0.250s fault net.cut: ponger -> pinger
	// 0.307s drop example.Pong ponger->pinger: partition_at_send
	// 0.407s drop example.Pong ponger->pinger: partition_at_send
	// 0.450s fault net.connect: ponger -> pinger
	// pinger at mono 512ms: pong 5 (answered 5) rtt 12ms
	// 0.606s crash ponger
	// 0.607s drop example.Pong ponger->pinger: sender_crashed
	// 0.705s drop example.Ping pinger->ponger: dest_down
	// 0.750s restart ponger (restored 8 bytes)
	// pinger at mono 812ms: pong 8 (answered 6) rtt 12ms
	// pinger at mono 912ms: pong 9 (answered 7) rtt 12ms
	// outcome: horizon
	// pings sent: 10 delivered: 8
	// pongs sent: 8 delivered: 5
	// answered (durable): 7
}
