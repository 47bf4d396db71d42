package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"example.com/custom-election/hpedeaf"

	"github.com/electsim/electsim/registry"
	"github.com/electsim/electsim/scenario"
	"github.com/electsim/electsim/simrun"
)

// TestMain registers, under hpe's name, a deliberately broken copy of it:
// what a copied example with a bug would register. The real hpe is
// registered only by main, which tests do not run.
func TestMain(m *testing.M) {
	registry.Default.MustRegister(twoLeaders())
	registry.Default.MustRegister(hpedeaf.Descriptor())
	os.Exit(m.Run())
}

// twoLeaders is the broken copy of hpe (package hpedeaf) under hpe's
// name, so example.yaml runs it.
func twoLeaders() registry.Algorithm {
	a := hpedeaf.Descriptor()
	a.Name = "hpe"
	return a
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
