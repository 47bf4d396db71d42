package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"example.com/custom-election/hpe"

	"github.com/electsim/electsim/registry"
	"github.com/electsim/electsim/scenario"
	"github.com/electsim/electsim/sim"
	"github.com/electsim/electsim/simrun"
)

// TestMain registers, under hpe's name, a deliberately broken copy of it:
// what a copied example with a bug would register. The real hpe is
// registered only by main, which tests do not run.
func TestMain(m *testing.M) {
	registry.Default.MustRegister(twoLeaders())
	os.Exit(m.Run())
}

// twoLeaders is hpe with one bug: the second candidate never hears the
// first, so both lead, in epochs of their own (an election-safety check
// alone would not see it; split-brain does).
func twoLeaders() registry.Algorithm {
	a := hpe.Descriptor()
	build := a.Build
	a.Build = func(v registry.Values, candidates int, r *sim.Rand) (registry.Factory, error) {
		f, err := build(v, candidates, r)
		if err != nil {
			return nil, err
		}
		return func(p []sim.NodeID, s registry.Services) sim.Node {
			return &deaf{Node: f(p, s), peers: p}
		}, nil
	}
	return a
}

// deaf drops every message from the first candidate to the second.
type deaf struct {
	sim.Node
	peers []sim.NodeID
	self  sim.NodeID
}

func (d *deaf) Start(env sim.Env, restored []byte) {
	d.self = env.ID()
	d.Node.Start(env, restored)
}

func (d *deaf) OnMessage(m sim.Message) {
	if d.self == d.peers[1] && m.From == d.peers[0] {
		return
	}
	d.Node.OnMessage(m)
}

// The template scenario allows no check, so a copy whose algorithm elects
// two leaders fails it on every seed (docs/extending.md, "A scenario that
// allows nothing"). It passed every seed while example.yaml allowed
// split_brain.
func TestTemplateFailsTwoLeaders(t *testing.T) {
	src, err := os.ReadFile("example.yaml")
	require.NoError(t, err)
	sc, err := scenario.Parse("example.yaml", src)
	require.NoError(t, err)
	const seeds = 200
	failed := 0
	for seed := uint64(1); seed <= seeds; seed++ {
		r, err := sc.Run(scenario.RunOptions{Seed: seed})
		require.NoError(t, err)
		if !r.OK {
			failed++
			require.Contains(t, strings.Join(r.Problems, "\n"), "split_brain", "seed %d", seed)
		}
	}
	require.Equal(t, seeds, failed, "runs of the two-leader copy that failed example.yaml")

	// And the README's command exits 1 for it.
	var out, errb bytes.Buffer
	code := simrun.Main([]string{"-scenario", "example.yaml", "-seeds", "20", "-quiet", "-shrink=false",
		"-out", filepath.Join(t.TempDir(), "out")}, &out, &errb)
	require.Equal(t, 1, code, "simrun -scenario example.yaml with the two-leader copy\n%s%s", out.String(), errb.String())
}
