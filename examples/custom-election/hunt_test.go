package main

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/hunt"
)

// A hunt of the broken copy (hpe-deaf, which splits its brain on every
// seed of example.yaml) finds it with -checks split_brain,election_safety
// on the built-in base, whose fenced resource absorbs the overlaps: the
// election's own promise is judged harmless or not (issue 38 point 6;
// docs/extending.md, "Hunting a broken copy"). It found nothing before.
func TestHuntFindsTheBrokenCopy(t *testing.T) {
	for _, checks := range [][]string{nil, {"split_brain", "election_safety"}} {
		res, err := hunt.Search(context.Background(), hunt.Options{Algo: "hpe-deaf", Checks: checks, Runs: 100, Seed: 1, Workers: 1, Quiet: true})
		require.NoError(t, err)
		require.True(t, res.Found, "-checks %v: nothing found in %d runs", checks, res.Runs)
		require.Equal(t, "split_brain", res.Check)
	}
}
