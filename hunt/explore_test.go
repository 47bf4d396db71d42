package hunt

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"
)

func TestExplore(t *testing.T) {
	if os.Getenv("HUNT_EXPLORE") == "" {
		t.Skip()
	}
	start := time.Now()
	res, err := Search(context.Background(), Options{Algo: os.Getenv("HUNT_ALGO"), Runs: runsEnv(), Seed: seedEnv(), Workers: 1, Progress: os.Stderr,
		Sets: splitSets(os.Getenv("HUNT_SETS")), Strategies: stratEnv()})
	t.Logf("err=%v found=%v runs=%d strategy=%s check=%s failure=%v el=%v sim=%v exh=%d by=%v", err, res.Found, res.Runs, res.Strategy, res.Check, res.Failure, time.Since(start), res.SimTime, res.Exhausted, res.ByStrategy)
	t.Logf("cov: %s", res.Coverage)
	t.Logf("expl: %s", res.Explanation)
	t.Logf("repro:\n%s", res.Repro)
}

func splitSets(s string) []string {
	if s == "" {
		return nil
	}
	var out []string
	for _, x := range []string{s} {
		out = append(out, x)
	}
	return out
}

func runsEnv() int {
	n := 200
	if s := os.Getenv("HUNT_RUNS"); s != "" {
		fmt.Sscan(s, &n)
	}
	return n
}

func stratEnv() []Strategy {
	if s := os.Getenv("HUNT_STRAT"); s != "" {
		return []Strategy{Strategy(s)}
	}
	return nil
}

func seedEnv() uint64 {
	n := uint64(1)
	if s := os.Getenv("HUNT_SEED"); s != "" {
		fmt.Sscan(s, &n)
	}
	return n
}
