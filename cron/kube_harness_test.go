package cron_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/cron"
	"github.com/electsim/electsim/sim"
)

// kworld is a small Kubernetes-mode deployment: controller-managers
// leading in scripted tenures (so a test sets a lease split exactly), the
// fenced resource, the API server and kubelets kubelet1..kubeletN.
type kworld struct {
	s        *sim.Sim
	rec      *sim.Recorder
	cfg      *cron.Config
	kcm      []sim.NodeID
	res      *cron.Resource
	api      *cron.APIServer
	apiID    sim.NodeID
	kubelets []sim.NodeID
}

func newKWorld(t *testing.T, seed uint64, cfg cron.Config, tenures [][]tenure, keep bool) *kworld {
	t.Helper()
	s := sim.New(sim.Config{Seed: seed, WallStart: start, Link: sim.LinkConfig{Latency: sim.Uniform(time.Millisecond, 5*time.Millisecond)}})
	w := &kworld{s: s, rec: &sim.Recorder{}}
	if keep {
		s.AddSink(w.rec)
	}
	n := sim.NodeID(len(tenures))
	cfg.Resource, cfg.Kube.APIServer = n, n+1
	cfg.Kube.KubeletNodes = nil
	for k := 0; k < cfg.Kube.Kubelets; k++ {
		cfg.Kube.KubeletNodes = append(cfg.Kube.KubeletNodes, n+2+sim.NodeID(k))
	}
	cfg.NotBefore = start
	require.NoError(t, cfg.Validate())
	w.cfg = &cfg
	for i, ts := range tenures {
		w.kcm = append(w.kcm, s.AddNode(nodeName(i), cron.NewControllerManager(&scripted{tenures: ts}, w.cfg)))
	}
	_, w.res = cron.AddResource(s, "resource", cfg.Jobs, cfg.Policy)
	w.apiID, w.api = cron.AddAPIServer(s, "apiserver", w.cfg)
	require.Equal(t, cfg.Kube.APIServer, w.apiID)
	for k := 0; k < cfg.Kube.Kubelets; k++ {
		id := s.AddFreshNode("kubelet"+string(rune('1'+k)), func() sim.Node { return cron.NewKubelet(w.cfg) })
		require.Equal(t, cfg.Kube.KubeletNodes[k], id)
		w.kubelets = append(w.kubelets, id)
	}
	return w
}

// kcfg is a one-CronJob configuration: schedule, a run of d with writes
// writes, the resource policy and the Kubernetes settings (kubelets 2 if
// unset).
func kcfg(schedule string, d time.Duration, writes int, policy cron.Policy, k cron.KubeConfig) cron.Config {
	if k.Kubelets == 0 {
		k.Kubelets = 2
	}
	return cron.Config{Jobs: cron.Table{{Name: "report", Schedule: schedule, RunMin: d, RunMax: d, Writes: writes}}, Policy: policy, Kube: k}
}

// kube returns the API defaults with 2 kubelets, changed by set.
func kube(set func(*cron.KubeConfig)) cron.KubeConfig {
	k := cron.DefaultKube(2)
	if set != nil {
		set(&k)
	}
	return k
}

// effects returns the effect records named name (for slot, if slot != 0).
func (w *kworld) effects(name string, slot int64) []sim.Record {
	var out []sim.Record
	for _, r := range w.rec.Records {
		if r.Type == sim.RecEffect && r.Name == name && (slot == 0 || r.B == slot) {
			out = append(out, r)
		}
	}
	return out
}

// facts returns the effect records carrying fact f for slot (any if 0).
func (w *kworld) facts(f sim.Fact, slot int64) []sim.Record {
	var out []sim.Record
	for _, r := range w.rec.Records {
		if r.Type == sim.RecEffect && r.Fact == f && (slot == 0 || r.B == slot) {
			out = append(out, r)
		}
	}
	return out
}

// runsOf returns the distinct (node, run) pairs that wrote slot, and how
// many of their writes were applied.
func (w *kworld) runsOf(slot int64) (runs int, applied int) {
	type key struct {
		n sim.NodeID
		r int64
	}
	seen := map[key]bool{}
	for _, e := range w.res.Log() {
		if e.Slot != slot {
			continue
		}
		seen[key{e.Node, e.Run}] = true
		if e.Accepted {
			applied++
		}
	}
	return len(seen), applied
}

// maxConcurrent is the largest number of runs of slot (any if 0) open at
// once, from the exec facts: a run opens at FactExecStarted and closes at
// FactExecCompleted or FactExecFailed of its node and run.
func (w *kworld) maxConcurrent(slot int64) int {
	type key struct {
		n sim.NodeID
		r int64
	}
	open, peak := map[key]bool{}, 0
	for _, r := range w.rec.Records {
		if r.Type != sim.RecEffect || (slot != 0 && r.B != slot) {
			continue
		}
		switch r.Fact {
		case sim.FactExecStarted:
			open[key{r.Node, r.A}] = true
			peak = max(peak, len(open))
		case sim.FactExecCompleted, sim.FactExecFailed:
			delete(open, key{r.Node, r.A})
		}
	}
	return peak
}
