package customtest

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/contract"
	"github.com/electsim/electsim/registry"
	"github.com/electsim/electsim/reports"
	"github.com/electsim/electsim/sim"
	"github.com/electsim/electsim/simrun"
)

// promising is lowest that fails over: a follower that has not heard its
// leader for three intervals forgets it and leads, until a lower node
// speaks up. Its contract, one a user might write: no two nodes act as
// leader at once, unless a process was paused (a paused leader keeps
// believing it leads). A partition is not excepted, so the overlap an
// isolated leader causes is a breach.
type promising struct {
	lowest
	lastHeard time.Duration
}

func (p *promising) OnMessage(m sim.Message) {
	if m.Kind == kindHello && m.From < p.env.ID() && (p.heard == sim.None || m.From <= p.heard) {
		p.lastHeard = p.env.Now()
	}
	p.lowest.OnMessage(m)
}

func (p *promising) OnTimer(id sim.TimerID, tag int) {
	if p.heard != sim.None && p.env.Now()-p.lastHeard > 3*p.cfg.interval {
		p.heard = sim.None // its leader went silent
	}
	p.lowest.OnTimer(id, tag)
}

func init() {
	a := lowestDescriptor()
	a.Name, a.Doc, a.Package = "promising", "throwaway: lowest that fails over, with a contract excepting pauses", "promising"
	build := a.Build
	a.Build = func(v registry.Values, n int, r *sim.Rand) (registry.Factory, error) {
		f, err := build(v, n, r)
		if err != nil {
			return nil, err
		}
		return func(p []sim.NodeID, svc registry.Services) sim.Node {
			return &promising{lowest: *f(p, svc).(*lowest)}
		}, nil
	}
	a.Contract = func(registry.Values) contract.Contract {
		return contract.Contract{Guarantees: []contract.Guarantee{{Check: "split_brain", Unless: []contract.FaultClass{contract.Pause},
			Source: "registry/customtest/verdict_test.go"}}}
	}
	registry.Default.MustRegister(a)
}

// n1, the lowest, leads; isolated at 2 s its followers elect n2 while n1
// still acts: a split-brain no exception excuses (a breach). Healed, n2
// hears n1 and yields; paused at 6 s, n1 falls silent, n2 leads again, and
// n1 resumes acting beside it: a split-brain the pause excuses.
const promisingYAML = `name: promising-demo
duration: 10s
cluster: {nodes: 3}
network: {latency: 1ms..5ms}
algorithm: {name: promising, delay: 10ms..20ms, interval: 50ms}
faults:
  - {at: 2s, partition: isolate, target: n1, for: 1s}
  - {at: 6s, pause: n1, for: 1s}
settle: {for: 2s, leader_within: 2s}
expect:
  allow: [split_brain, leader_linearizability]
`

// docs/output.md, violations_by_verdict: a run with a breached and an
// excused split-brain fails (the breach, whatever expect allows), and
// summary.json, report.html and the terminal show each finding's verdict
// and the run counted as a breach; two shards merge into the same split,
// and a shard with a forged split is refused.
func TestVerdictsShowEndToEnd(t *testing.T) {
	dir := t.TempDir()
	sc := filepath.Join(dir, "promising.yaml")
	require.NoError(t, os.WriteFile(sc, []byte(promisingYAML), 0o644))
	sweep := func(name string, args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := simrun.Main(append([]string{"-scenario", sc, "-shrink=false", "-out", filepath.Join(dir, name)}, args...), &out, &errb)
		return code, out.String(), errb.String()
	}
	code, out, errs := sweep("one", "-seeds", "2")
	require.Equal(t, 1, code, "a breach fails the run\n%s\n%s", out, errs)
	s := readSummaryFile(t, filepath.Join(dir, "one", "summary.json"))
	require.Len(t, s.Runs, 2)
	for _, r := range s.Runs {
		verdicts := map[string]string{}
		for _, v := range r.Violations {
			if v.Kind == "split_brain" && !v.Harmless {
				verdicts[v.Contract] = v.ExcusedBy
			}
		}
		assert.Contains(t, verdicts, "breach", "seed %d: %+v", r.Seed, r.Violations)
		assert.Equal(t, "pause", verdicts["excused"], "seed %d: %+v", r.Seed, r.Violations)
	}
	a := s.Algorithms[0]
	assert.Equal(t, 2, a.Violations["split_brain"])
	assert.Equal(t, reports.VerdictCounts{Breach: 2}, a.ViolationsByVerdict["split_brain"], "a run counts under its most serious verdict")
	assert.Equal(t, 2, a.BreachRuns)
	assert.Contains(t, out, "split_brain 2 [breach 2]", "the terminal's findings column")
	html, err := os.ReadFile(filepath.Join(dir, "one", "report.html"))
	require.NoError(t, err)
	assert.Contains(t, string(html), `<span class="tag bad verdict">contract breach</span>`)
	assert.Contains(t, string(html), `<span class="tag verdict">excused by pause</span>`)
	assert.Contains(t, string(html), `split_brain <b>2</b> <span class="verdicts">(breach 2)</span>`)

	// Two shards, merged: the same split.
	for i, sh := range []string{"0/2", "1/2"} {
		code, _, errs = sweep("shard"+string(rune('0'+i)), "-seeds", "2", "-shard", sh)
		require.Equal(t, 1, code, errs)
	}
	var mout, merr bytes.Buffer
	code = simrun.Main([]string{"merge", "-out", filepath.Join(dir, "merged"), filepath.Join(dir, "shard0"), filepath.Join(dir, "shard1")}, &mout, &merr)
	require.Equal(t, 1, code, "the merged sweep failed too\n%s\n%s", mout.String(), merr.String())
	m := readSummaryFile(t, filepath.Join(dir, "merged", "summary.json"))
	assert.Equal(t, a.ViolationsByVerdict, m.Algorithms[0].ViolationsByVerdict)
	html, err = os.ReadFile(filepath.Join(dir, "merged", "report.html"))
	require.NoError(t, err)
	assert.Contains(t, string(html), `split_brain <b>2</b> <span class="verdicts">(breach 2)</span>`)

	// A shard whose split was edited to hide its breach is refused.
	path := filepath.Join(dir, "shard0", "summary.json")
	var raw map[string]any
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &raw))
	raw["algorithms"].([]any)[0].(map[string]any)["violations_by_verdict"] = map[string]any{"split_brain": map[string]any{"excused": 1}}
	b, err = json.Marshal(raw)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, b, 0o644))
	mout.Reset()
	merr.Reset()
	code = simrun.Main([]string{"merge", "-out", filepath.Join(dir, "forged"), filepath.Join(dir, "shard0"), filepath.Join(dir, "shard1")}, &mout, &merr)
	assert.Equal(t, 2, code, mout.String())
	assert.Contains(t, merr.String(), "violations_by_verdict")
}

func readSummaryFile(t *testing.T, path string) *reports.Summary {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	s, err := reports.ReadJSON(f)
	require.NoError(t, err)
	return s
}
