package cron_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/cron"
	"github.com/electsim/electsim/sim"
)

// start is the calendar start of the test runs: one minute before 02:00.
var start = time.Date(2026, 11, 21, 1, 59, 0, 0, time.UTC)

// tenure is a scripted leadership period in the node's monotonic time.
type tenure struct {
	from, to time.Duration
	token    int64
}

// scripted is a fake election algorithm that acts as leader during fixed
// tenures of its own monotonic clock. It lets the cron tests control
// leadership exactly; the real algorithms are exercised in algorithms_test.go.
type scripted struct {
	tenures []tenure
	env     sim.Env
}

func (n *scripted) Start(env sim.Env, _ []byte) {
	n.env = env
	now := env.Now()
	for i, t := range n.tenures {
		if t.to <= now {
			continue
		}
		if t.from <= now {
			env.ActAsLeader(t.token, t.token)
		} else {
			env.SetTimer(t.from-now, 2*i)
		}
		env.SetTimer(t.to-now, 2*i+1)
	}
}

func (n *scripted) OnMessage(sim.Message) {}

func (n *scripted) OnTimer(_ sim.TimerID, tag int) {
	t := n.tenures[tag/2]
	if tag%2 == 0 {
		n.env.ActAsLeader(t.token, t.token)
	} else {
		n.env.StopLeading("tenure over")
	}
}

// world is a small cron deployment: candidates wrapped with cron.Wrap, a
// resource, and a recorder.
type world struct {
	s     *sim.Sim
	res   *cron.Resource
	resID sim.NodeID
	rec   *sim.Recorder
	cfg   *cron.Config
	nodes []sim.NodeID
}

func newWorld(t *testing.T, seed uint64, cfg cron.Config, tenures [][]tenure) *world {
	t.Helper()
	s := sim.New(sim.Config{Seed: seed, WallStart: start, Link: sim.LinkConfig{Latency: sim.Uniform(time.Millisecond, 5*time.Millisecond)}})
	w := &world{s: s, rec: &sim.Recorder{}}
	s.AddSink(w.rec)
	// The resource is added after the candidates so they get IDs 0..n-1.
	cfg.Resource = sim.NodeID(len(tenures))
	cfg.NotBefore = start
	require.NoError(t, cfg.Validate())
	w.cfg = &cfg
	for i, ts := range tenures {
		w.nodes = append(w.nodes, s.AddNode(nodeName(i), cron.Wrap(&scripted{tenures: ts}, w.cfg)))
	}
	w.resID, w.res = cron.AddResource(s, "resource", cfg.Jobs, cfg.Policy)
	require.Equal(t, cfg.Resource, w.resID)
	return w
}

func nodeName(i int) string { return "n" + string(rune('1'+i)) }

// effects returns the effect records named name.
func (w *world) effects(name string) []sim.Record {
	var out []sim.Record
	for _, r := range w.rec.Records {
		if r.Type == sim.RecEffect && r.Name == name {
			out = append(out, r)
		}
	}
	return out
}

func at(d time.Duration) sim.Time { return sim.Time(d) }

func slotAt(hh, mm, ss int) int64 {
	return time.Date(2026, 11, 21, hh, mm, ss, 0, time.UTC).UnixNano()
}
