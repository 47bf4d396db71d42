package sim_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/sim"
)

var (
	kindHostPing = sim.RegisterHostKind("test.HostPing")
	kindHostPong = sim.RegisterHostKind("test.HostPong")
)

// prober sends a HostPing to target every 10 ms and counts the pongs.
type prober struct {
	env    sim.Env
	target sim.NodeID
	pongs  []sim.Time
}

func (p *prober) Start(env sim.Env, _ []byte) { p.env = env; env.SetTimer(10*time.Millisecond, 1) }
func (p *prober) OnMessage(m sim.Message) {
	if m.Kind == kindHostPong {
		p.pongs = append(p.pongs, sim.Time(p.env.Now()))
	}
}
func (p *prober) OnTimer(sim.TimerID, int) {
	p.env.Send(sim.Message{Kind: kindHostPing, To: p.target})
	p.env.SetTimer(10*time.Millisecond, 1)
}

// sidecarApp is an application whose host runs an agent answering
// HostPing; the process counts what reached it.
type sidecarApp struct{ process int }

func (a *sidecarApp) Start(sim.Env, []byte)    {}
func (a *sidecarApp) OnMessage(sim.Message)    { a.process++ }
func (a *sidecarApp) OnTimer(sim.TimerID, int) {}
func (a *sidecarApp) OnHostMessage(h sim.Host, m sim.Message) {
	h.Send(sim.Message{Kind: kindHostPong, To: m.From})
}

// wrapper runs another node inside it (the Inner() convention).
type wrapper struct{ in sim.Node }

func (w *wrapper) Start(env sim.Env, b []byte)     { w.in.Start(env, b) }
func (w *wrapper) OnMessage(m sim.Message)         { w.in.OnMessage(m) }
func (w *wrapper) OnTimer(id sim.TimerID, tag int) { w.in.OnTimer(id, tag) }
func (w *wrapper) Inner() sim.Node                 { return w.in }

// pongsIn counts the pongs received within [from, to).
func pongsIn(p *prober, from, to time.Duration) int {
	n := 0
	for _, at := range p.pongs {
		if at >= sim.Time(from) && at < sim.Time(to) {
			n++
		}
	}
	return n
}

// docs/engine.md, "Host agents": a host kind reaches the destination's
// HostAgent while its process is crashed or paused, and is lost like any
// message when the destination's links are cut; a destination with no
// agent gets it in its process.
func TestHostAgentOutlivesProcessNotLinks(t *testing.T) {
	for _, wrapped := range []bool{false, true} {
		s := sim.New(sim.Config{})
		p := &prober{}
		s.AddNode("prober", p)
		app := &sidecarApp{}
		var node sim.Node = app
		if wrapped {
			node = &wrapper{in: app}
		}
		id := s.AddNode("app", node)
		p.target = id
		s.At(ms(100), func() { s.Crash(id) })
		s.At(ms(200), func() { s.Restart(id, true) })
		s.At(ms(300), func() { s.Pause(id) })
		s.At(ms(400), func() { s.Resume(id) })
		s.At(ms(500), func() { s.Isolate(id) })
		s.At(ms(600), func() { s.Heal() })
		s.RunFor(700 * time.Millisecond)
		msg := func(w bool) string {
			if w {
				return "wrapped"
			}
			return "plain"
		}(wrapped)
		assert.Equal(t, 10, pongsIn(p, 100*time.Millisecond, 200*time.Millisecond), "%s: crashed process, agent answers", msg)
		assert.Equal(t, 10, pongsIn(p, 300*time.Millisecond, 400*time.Millisecond), "%s: paused process, agent answers", msg)
		assert.Zero(t, pongsIn(p, 505*time.Millisecond, 600*time.Millisecond), "%s: the host is cut off", msg)
		assert.Zero(t, app.process, "%s: host kinds never reach the process", msg)
	}
}

// TestHostKindWithoutAgentIsAnyMessage: a destination with no HostAgent
// gets host kinds in its process, dropped while it is down.
func TestHostKindWithoutAgentIsAnyMessage(t *testing.T) {
	s := sim.New(sim.Config{})
	p := &prober{}
	s.AddNode("prober", p)
	l := &probeLog{s: s}
	id := s.AddNode("plain", newProbe(l))
	p.target = id
	s.At(ms(100), func() { s.Crash(id) })
	s.RunFor(200 * time.Millisecond)
	assert.Empty(t, p.pongs)
	require.Len(t, l.of("msg"), 9, "pings at 10..90 ms reach the process; none after the crash")
	assert.Equal(t, uint64(10), s.Stats().DropReasons[sim.DropDestDown])
}
