package cron_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/cron"
	"github.com/electsim/electsim/sim"
)

// qworld is a small queue-mode deployment: scripted schedulers, the fenced
// resource, the queue, the execution store and workers w1..wN.
type qworld struct {
	s       *sim.Sim
	rec     *sim.Recorder
	cfg     *cron.Config
	sched   []sim.NodeID
	res     *cron.Resource
	queue   *cron.Queue
	store   *cron.ExecStore
	workers []sim.NodeID
}

func newQWorld(t *testing.T, seed uint64, cfg cron.Config, tenures [][]tenure, keep bool) *qworld {
	t.Helper()
	s := sim.New(sim.Config{Seed: seed, WallStart: start, Link: sim.LinkConfig{Latency: sim.Uniform(time.Millisecond, 5*time.Millisecond)}})
	w := &qworld{s: s, rec: &sim.Recorder{}}
	if keep {
		s.AddSink(w.rec)
	}
	n := sim.NodeID(len(tenures))
	cfg.Resource, cfg.Queue.Queue, cfg.Queue.ExecStore = n, n+1, n+2
	for k := 0; k < cfg.Queue.Workers; k++ {
		cfg.Queue.WorkerNodes = append(cfg.Queue.WorkerNodes, n+3+sim.NodeID(k))
	}
	cfg.NotBefore = start
	require.NoError(t, cfg.Validate())
	w.cfg = &cfg
	for i, ts := range tenures {
		w.sched = append(w.sched, s.AddNode(nodeName(i), cron.NewScheduler(&scripted{tenures: ts}, w.cfg)))
	}
	_, w.res = cron.AddResource(s, "resource", cfg.Jobs, cfg.Policy)
	_, w.queue = cron.AddQueue(s, "queue", w.cfg)
	_, w.store = cron.AddExecStore(s, "execstore", w.cfg)
	for k := 0; k < cfg.Queue.Workers; k++ {
		id := s.AddFreshNode("w"+string(rune('1'+k)), func() sim.Node { return cron.NewWorker(w.cfg) })
		require.Equal(t, cfg.Queue.WorkerNodes[k], id)
		w.workers = append(w.workers, id)
	}
	return w
}

// facts returns the effect records carrying fact f.
func (w *qworld) facts(f sim.Fact) []sim.Record {
	var out []sim.Record
	for _, r := range w.rec.Records {
		if r.Type == sim.RecEffect && r.Fact == f {
			out = append(out, r)
		}
	}
	return out
}

// qcfg is a one-job queue-mode configuration: @every 10s, a run of d,
// one write at its end.
func qcfg(d time.Duration, policy cron.Policy, q cron.QueueConfig) cron.Config {
	return cron.Config{
		Jobs:   cron.Table{{Name: "report", Schedule: "@every 10s", RunMin: d, RunMax: d}},
		Policy: policy,
		Queue:  q,
	}
}
