package reports

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// synthSummary builds a deterministic sweep of seeds [first, first+count)
// under algos, each run with about two failovers, a few violations and a
// cron summary, aggregated. Runs are in (algorithm, seed) order, as simrun
// writes them.
func synthSummary(first uint64, count int, algos ...string) *Summary {
	s := synthAll(first, count, algos...)
	s.Aggregate()
	return s
}

// synthAll is synthSummary before Aggregate: every run, no aggregates.
func synthAll(first uint64, count int, algos ...string) *Summary {
	s := &Summary{
		Schema: Schema,
		Scenario: ScenarioInfo{Name: "leader-crash", File: "scenarios/leader-crash.yaml",
			Description: "the leader crashes twice; a new one must take over", DurationMs: 60000, SettleMs: 10000, Nodes: 5},
		GoVersion: "go1.26.8",
		Seeds:     SeedRange{First: first, Count: count},
	}
	for ai, a := range algos {
		for k := range count {
			seed := first + uint64(k)
			s.Runs = append(s.Runs, synthRun(seed, a, ai))
		}
	}
	return s
}

// synthRun is one synthetic run; everything derives from (seed, algorithm).
func synthRun(seed uint64, algo string, ai int) RunSummary {
	rng := rand.New(rand.NewPCG(seed, uint64(ai)+1))
	base := []float64{180, 90, 350, 60, 250}[ai%5]
	r := RunSummary{Seed: seed, Algorithm: algo, OK: true, Outcome: "ok",
		TraceHash: fmt.Sprintf("%016x", rng.Uint64()), Events: 20000 + uint64(rng.IntN(5000)),
		MessagesByKind: map[string]uint64{algo + ".Heartbeat": uint64(3000 + rng.IntN(100)), algo + ".Vote": uint64(20 + rng.IntN(10))},
		Checks:         map[string]string{"election_safety": "ok", "split_brain": "ok", "double_execution": "ok", "liveness": "ok"},
		Cron:           &CronSummary{Due: 50, Once: 50}}
	nf := 1 + rng.IntN(3)
	for j := range nf {
		at := 10000 + float64(j)*20000 + math.Round(rng.Float64()*1000)
		lat := math.Round((base+rng.ExpFloat64()*base/2)*10) / 10
		el := 1 + rng.IntN(3)
		f := FailoverSummary{Fault: fmt.Sprintf("n%d crashed", rng.IntN(5)), FaultAtMs: at, Completed: true,
			LeaderAtMs: Ms(at + lat), LatencyMs: Ms(lat), DetectionMs: math.Round(lat * 0.6), LeaderlessMs: lat,
			Elections: el, Messages: el * (8 + ai*12 + rng.IntN(6))}
		if seed%41 == 7 && j == 0 {
			f.Completed, f.LatencyMs, f.LeaderAtMs = false, nil, nil
		}
		r.Elections += el
		r.LeaderlessMs += f.LeaderlessMs
		r.Failovers = append(r.Failovers, f)
	}
	r.LeaderChanges = nf
	if seed%23 == 5 {
		r.Violations = append(r.Violations, ViolationSummary{Kind: "split_brain", AtMs: 12345.6, Harmless: true,
			Explanation: "t=12.300s n2 paused for 6.000s (local 02:00:12.300) · t=15.100s n0 acts as leader, epoch 4, token 4 → harmless overlap",
			Replay:      fmt.Sprintf("simrun -scenario scenarios/leader-crash.yaml -algorithm %s -seed %d", algo, seed)})
		r.Checks["split_brain"] = "violated"
	}
	if seed%97 == 3 && ai == 1 {
		r.OK, r.Outcome = false, "violation"
		r.Problems = []string{"unexpected double_execution: job0@2 applied twice"}
		r.Violations = append(r.Violations, ViolationSummary{Kind: "double_execution", AtMs: 31000,
			Explanation: "t=30.100s n1 started a run of job0@2 with token 3 · t=31.000s n3 wrote job0@2 step 1 with token 5; resource accepted → double execution",
			Replay:      fmt.Sprintf("simrun -scenario scenarios/leader-crash.yaml -algorithm %s -seed %d", algo, seed)})
		r.Checks["double_execution"] = "violated"
		r.Cron.Once, r.Cron.Twice = 49, 1
	}
	return r
}

// synthTimeline is a 5-node leadership timeline with a pause, a partition
// and fenced writes.
func synthTimeline() *Timeline {
	tl := &Timeline{Title: "leader-crash · raft · seed 7", Nodes: []string{"n0", "n1", "n2", "n3", "n4"}, EndMs: 60000}
	tl.Tenures = []Span{
		{Node: "n2", FromMs: 850, ToMs: 12300, Label: "e=1"},
		{Node: "n0", FromMs: 12650, ToMs: 30200, Label: "e=2"},
		{Node: "n2", FromMs: 18000, ToMs: 18600, Label: "e=1"},
		{Node: "n4", FromMs: 30500, ToMs: 60000, Label: "e=3"},
	}
	tl.Faults = []Span{
		{Node: "n2", FromMs: 12000, ToMs: 18000, Label: "n2 paused 6s"},
		{Node: "", FromMs: 30000, ToMs: 36000, Label: "partition {n0,n1} | {n2,n3,n4}"},
	}
	for t := 1000.0; t < 60000; t += 1000 {
		node, ok := "n2", true
		switch {
		case t > 12300 && t < 30300:
			node = "n0"
		case t >= 30300:
			node = "n4"
		}
		tl.Writes = append(tl.Writes, Mark{Node: node, AtMs: t + 20, Accepted: ok})
	}
	tl.Writes = append(tl.Writes, Mark{Node: "n2", AtMs: 18100, Accepted: false, Label: "token 1 < 2"})
	return tl
}
