package faults_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/algorithms/lease"
	"github.com/electsim/electsim/faults"
	"github.com/electsim/electsim/sim"
)

// act is one step of a scripted node: at monotonic time At it starts leading
// Epoch (Lead), stops leading (Stop), or records an effect named Effect.
type act struct {
	At     time.Duration
	Lead   bool
	Stop   bool
	Epoch  int64
	Effect string
	Fact   sim.Fact // the effect's typed fact, which triggers read
	A      int64    // the effect's A (a protocol state's index)
}

// scripted is a tiny deterministic test node that plays a fixed schedule of
// observations, so a test knows who leads when without any protocol. A
// restart re-arms the acts still ahead (node contract: Start rebuilds all
// volatile state).
type scripted struct {
	env     sim.Env
	script  []act
	persist bool // write "s" to disk at every start
}

func (n *scripted) Start(env sim.Env, _ []byte) {
	*n = scripted{env: env, script: n.script, persist: n.persist}
	if n.persist {
		env.Persist([]byte("s"))
	}
	for i, a := range n.script {
		if a.At >= env.Now() {
			env.SetTimer(a.At-env.Now(), i)
		}
	}
}

func (n *scripted) OnMessage(sim.Message) {}

func (n *scripted) OnTimer(_ sim.TimerID, tag int) {
	switch a := n.script[tag]; {
	case a.Lead:
		n.env.ActAsLeader(a.Epoch, a.Epoch)
	case a.Stop:
		n.env.StopLeading("script")
	case a.Effect != "":
		n.env.Effect(sim.Effect{Name: a.Effect, Fact: a.Fact, A: a.A})
	}
}

func lead(at time.Duration, epoch int64) act { return act{At: at, Lead: true, Epoch: epoch} }
func stop(at time.Duration) act              { return act{At: at, Stop: true} }

// harness is a cluster of scripted candidates n0..n(k-1), optionally a lease
// store ("store") and a second service ("res"), with a trace recorder.
type harness struct {
	t     *testing.T
	s     *sim.Sim
	rec   *sim.Recorder
	cands []sim.NodeID
	store sim.NodeID
	st    *lease.Store
	res   sim.NodeID
}

type opts struct {
	seed     uint64
	store    bool
	resource bool
}

func newHarness(t *testing.T, o opts, scripts ...[]act) *harness {
	t.Helper()
	h := &harness{t: t, rec: &sim.Recorder{}, store: sim.None, res: sim.None}
	h.s = sim.New(sim.Config{Seed: o.seed, MaxTime: time.Hour, Link: sim.LinkConfig{Latency: sim.Constant(time.Millisecond)}})
	h.s.AddSink(h.rec)
	for i, sc := range scripts {
		h.cands = append(h.cands, h.s.AddNode(fmt.Sprintf("n%d", i), &scripted{script: sc}))
	}
	if o.store {
		h.st = lease.NewStore(lease.StoreConfig{})
		h.store = h.s.AddNode("store", h.st, sim.Service())
	}
	if o.resource {
		h.res = h.s.AddNode("res", &scripted{}, sim.Service())
	}
	return h
}

func (h *harness) env() faults.Environment {
	return faults.Environment{Candidates: h.cands, Store: h.store, StoreNode: h.st, Resource: h.res}
}

// inject builds the injector or fails the test.
func (h *harness) inject(fs []faults.Fault, ns ...faults.Nemesis) *faults.Injector {
	h.t.Helper()
	in, err := faults.New(h.s, h.env(), fs, ns)
	require.NoError(h.t, err)
	return in
}

// notes returns the fault-layer notes whose name starts with prefix, as
// "time name detail" lines.
func (h *harness) notes(prefix string) []string {
	var out []string
	for _, r := range h.rec.Records {
		if r.Type == sim.RecNote && strings.HasPrefix(r.Name, prefix) {
			out = append(out, fmt.Sprintf("%v %s %s", r.At, r.Name, r.Detail))
		}
	}
	return out
}

// records returns the records of type typ for node (sim.None: any node).
// sim.RecFault also matches the fault layer's notes (sim.RecNote), so the
// engine's fault records and the injector's notes read in trace order.
func (h *harness) records(typ sim.RecordType, node sim.NodeID) []sim.Record {
	var out []sim.Record
	for _, r := range h.rec.Records {
		match := r.Type == typ || (typ == sim.RecFault && r.Type == sim.RecNote)
		if match && (node == sim.None || r.Node == node) {
			out = append(out, r)
		}
	}
	return out
}

// leaderAt returns the node that, by the trace, was the last to start
// leading at or before t without stepping down — the trace's own account.
func (h *harness) leaderAt(t sim.Time) sim.NodeID {
	leading := map[sim.NodeID]int64{}
	for _, r := range h.rec.Records {
		if r.At > t {
			break
		}
		switch r.Type {
		case sim.RecLead:
			leading[r.Node] = r.Epoch
		case sim.RecStepDown:
			delete(leading, r.Node)
		}
	}
	best, bestE := sim.None, int64(-1)
	for id, e := range leading {
		if e > bestE || (e == bestE && id < best) {
			best, bestE = id, e
		}
	}
	return best
}

func sec(x float64) time.Duration { return time.Duration(x * float64(time.Second)) }
func at(x float64) sim.Time       { return sim.Time(sec(x)) }
func durp(d time.Duration) *faults.DurRange {
	r := faults.Dur(d)
	return &r
}
func tgt(t faults.Target) *faults.Target { return &t }
