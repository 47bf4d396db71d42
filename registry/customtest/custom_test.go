// Package customtest registers a throwaway algorithm from outside the
// repository's algorithm packages, through the public registry only, and
// drives it through the scenario loader, -set, materialize, shrink, simrun's
// sweeps and its matrix: what an algorithm author gets (docs/extending.md).
// It also copies examples/custom-election out of the repository and builds,
// vets and tests the copy by the documented recipe (copy_test.go).
package customtest

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/electsim/electsim/registry"
	"github.com/electsim/electsim/scenario"
	"github.com/electsim/electsim/sim"
	"github.com/electsim/electsim/simrun"
)

func TestMain(m *testing.M) {
	registry.Default.MustRegister(lowestDescriptor())
	if os.Getenv("SIMRUN_AS_MAIN") == "1" { // a worker process of an -isolate sweep (crash_test.go)
		os.Exit(simrun.Main(os.Args[1:], os.Stdout, os.Stderr))
	}
	// simrun.Main installs its SIGINT/SIGTERM handler once per process.
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("github.com/electsim/electsim/simrun.handleSignals.func1"))
}

var kindHello = sim.RegisterKind("lowest.Hello")

// lowest is a throwaway election: a candidate waits a random delay plus
// 100 ms per lower-ranked ID, and leads (epoch = its ID + 1) unless it has
// heard from a lower one; a leader announces itself every interval, and the
// others believe the lowest they hear from.
type lowest struct {
	cfg     lowestConfig
	peers   []sim.NodeID
	env     sim.Env
	heard   sim.NodeID
	leading bool
}

type lowestConfig struct {
	delayLo, delayHi time.Duration
	interval         time.Duration
}

func (n *lowest) Start(env sim.Env, _ []byte) {
	*n = lowest{cfg: n.cfg, peers: n.peers, env: env, heard: sim.None}
	rank := time.Duration(env.ID()) * 100 * time.Millisecond
	env.SetTimer(rank+env.Rand().DurationRange(n.cfg.delayLo, n.cfg.delayHi), 1)
}

func (n *lowest) OnMessage(m sim.Message) {
	if m.Kind == kindHello && (n.heard == sim.None || m.From < n.heard) && m.From < n.env.ID() {
		n.heard, n.leading = m.From, false
		n.env.StopLeading("a lower node leads")
		n.env.BelieveLeader(m.From, int64(m.From)+1)
	}
}

func (n *lowest) OnTimer(sim.TimerID, int) {
	if n.heard == sim.None {
		if !n.leading {
			ep := int64(n.env.ID()) + 1
			n.leading = true
			n.env.ActAsLeader(ep, ep)
			n.env.BelieveLeader(n.env.ID(), ep)
		}
		for _, p := range n.peers {
			if p != n.env.ID() {
				n.env.Send(sim.Message{Kind: kindHello, To: p})
			}
		}
	}
	n.env.SetTimer(n.cfg.interval, 1)
}

func lowestDescriptor() registry.Algorithm {
	return registry.Algorithm{
		Name: "lowest", Doc: "throwaway: the lowest ID leads", Package: "lowest",
		Params: []registry.Param{
			{Key: "delay", Kind: registry.DurationRange, Doc: "wait before leading, default 10ms..50ms"},
			{Key: "interval", Kind: registry.Duration, Doc: "announcement interval, default 50ms"},
		},
		Build: func(v registry.Values, _ int, _ *sim.Rand) (registry.Factory, error) {
			c := lowestConfig{delayLo: 10 * time.Millisecond, delayHi: 50 * time.Millisecond, interval: 50 * time.Millisecond}
			if v.Has("delay") {
				c.delayLo, c.delayHi = v.DurationRange("delay")
			}
			registry.SetDuration(v, "interval", &c.interval)
			if c.interval <= 0 {
				return nil, errInterval
			}
			return func(p []sim.NodeID, _ registry.Services) sim.Node { return &lowest{cfg: c, peers: p} }, nil
		},
	}
}

type constErr string

func (e constErr) Error() string { return string(e) }

const errInterval = constErr("lowest: interval must be positive")

const lowestYAML = `name: lowest-demo
duration: 10s
cluster: {nodes: 3}
algorithm: {name: lowest, delay: 10ms..40ms, interval: 100ms..200ms}
faults:
  - {at: 2s, pause: n3, for: 1s}
  - {at: 4s, pause: n2, for: 1s}
settle: {for: 5s, leader_within: 2s}
`

func TestCustomAlgorithmThroughTheLoader(t *testing.T) {
	require.Contains(t, scenario.Algorithms(), "lowest")
	sc, err := scenario.Parse("lowest.yaml", []byte(lowestYAML))
	require.NoError(t, err)
	r, err := sc.Run(scenario.RunOptions{Seed: 3})
	require.NoError(t, err)
	require.True(t, r.OK, "%v\n%s", r.Problems, r.Report)
	assert.True(t, r.Report.HasLeader)

	// -set validates against the descriptor like the file.
	sc2, err := scenario.ParseWith("lowest.yaml", []byte(lowestYAML), []string{"algorithm.interval=75ms"})
	require.NoError(t, err)
	assert.Contains(t, sc2.Algorithm.Params(), "interval=75ms")
	_, err = scenario.ParseWith("lowest.yaml", []byte(lowestYAML), []string{"algorithm.heartbeat=1s"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "algorithm.heartbeat: unknown field") // only lowest is registered here
	_, err = scenario.ParseWith("lowest.yaml", []byte(lowestYAML), []string{"algorithm.interval=0s"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "interval must be positive")

	// Materialize: the explicit scenario replays with the same trace hash.
	ex := r.Explicit()
	back, err := scenario.Parse("explicit.yaml", ex.YAML())
	require.NoError(t, err, "%s", ex.YAML())
	rr, err := back.Run(scenario.RunOptions{Seed: 3})
	require.NoError(t, err)
	assert.Equal(t, r.Sim.TraceHashHex(), rr.Sim.TraceHashHex())
	assert.Contains(t, string(ex.YAML()), "name: lowest")
}

// A failing run of the custom algorithm shrinks: the expectation that
// cannot hold (a split-brain the algorithm never shows) fails with or
// without the faults, so both go.
func TestCustomAlgorithmShrinks(t *testing.T) {
	sc, err := scenario.ParseWith("lowest.yaml", []byte(lowestYAML), []string{"expect.violations=[double_execution]"})
	require.NoError(t, err)
	r, err := sc.Run(scenario.RunOptions{Seed: 3})
	require.NoError(t, err)
	require.False(t, r.OK)
	sh, err := scenario.Shrink(r, scenario.ShrinkOptions{Budget: 10 * time.Second})
	require.NoError(t, err)
	assert.Equal(t, 2, sh.FaultsBefore)
	assert.Equal(t, 0, sh.FaultsAfter)
	assert.True(t, strings.Contains(string(sh.Scenario.YAML()), "name: lowest"))
}

// The custom algorithm runs in simrun's matrix and sweeps like a built-in.
func TestCustomAlgorithmInSimrun(t *testing.T) {
	dir := t.TempDir()
	sc := filepath.Join(dir, "lowest.yaml")
	require.NoError(t, os.WriteFile(sc, []byte(lowestYAML), 0o644))
	m := filepath.Join(dir, "m.yaml")
	require.NoError(t, os.WriteFile(m, []byte("name: custom\nseeds: 3\nalgorithms: [lowest]\nscenarios: [lowest.yaml]\n"), 0o644))
	var out, errb bytes.Buffer
	code := simrun.Main([]string{"-matrix", m, "-out", filepath.Join(dir, "mx")}, &out, &errb)
	require.Equal(t, 0, code, errb.String())
	md, err := os.ReadFile(filepath.Join(dir, "mx", "matrix.md"))
	require.NoError(t, err)
	assert.Contains(t, string(md), "lowest")

	out.Reset()
	code = simrun.Main([]string{"-scenario", sc, "-seeds", "4", "-quiet", "-out", filepath.Join(dir, "o"), "-json", "-"}, &out, &errb)
	require.Equal(t, 0, code, errb.String())
	assert.Contains(t, out.String(), `"algorithm": "lowest"`)
}
