package simrun

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/reports"
	"github.com/electsim/electsim/scenario"
)

// The timeline puts each fault on the rows of the nodes it hit, with its
// kind: a clock-rate fault on n4 does not shade n2, whose GC pause is its
// own band; a store fault (no candidate) shades every row. The settle
// phase, split-brain overlaps and slots run twice are marked.
func TestTimelineFaultsPerNode(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "tl.yaml")
	require.NoError(t, os.WriteFile(f, []byte(`name: tl
seed: 1
duration: 40s
cluster: {nodes: 5}
algorithm: {name: raft}
faults:
  - {at: 5s, clock: {node: n4, rate: 1.5}, for: 10s}
  - {at: 6s, pause: n2, for: 2s}
settle: {for: 10s, leader_within: 5s}
`), 0o644))
	sc, err := scenario.Load(f)
	require.NoError(t, err)
	r, err := sc.Run(scenario.RunOptions{Seed: 1, Story: true})
	require.NoError(t, err)
	tl := timeline(r)
	var got []reports.Span
	for _, s := range tl.Faults {
		got = append(got, reports.Span{Node: s.Node, Kind: s.Kind, FromMs: s.FromMs, ToMs: s.ToMs})
	}
	assert.Equal(t, []reports.Span{
		{Node: "n4", Kind: "clock", FromMs: 5000, ToMs: 15000},
		{Node: "n2", Kind: "pause", FromMs: 6000, ToMs: 8000},
	}, got)
	assert.Equal(t, 40000.0, tl.SettleMs)

	// The GC-pause story: overlaps on both leaders' rows, the slot run twice.
	sc, err = scenario.Load("../scenarios/gc-pause-unfenced.yaml")
	require.NoError(t, err)
	r, err = sc.Run(scenario.RunOptions{Seed: 1, Story: true})
	require.NoError(t, err)
	tl = timeline(r)
	nodes := map[string]bool{}
	for _, o := range tl.Overlaps {
		nodes[o.Node] = true
		assert.Less(t, o.FromMs, o.ToMs)
	}
	assert.Len(t, nodes, 2, "both leaders' rows")
	doubles := 0
	for _, m := range tl.Writes {
		if m.Double {
			doubles++
			assert.True(t, m.Accepted)
		}
	}
	assert.Equal(t, 2, doubles, "the slot's two applied writes")
}

// A comparison draws one timeline per algorithm.
func TestTimelinePerAlgorithm(t *testing.T) {
	dir := t.TempDir()
	code, _, e := simrun(t, "-scenario", partition, "-seeds", "2", "-algo", "raft,bully,etcd", "-out", dir, "-quiet", "-shrink=false")
	require.Contains(t, []int{exitOK, exitViolation}, code, e)
	for _, f := range []string{"timeline.png", "timeline.svg"} {
		_, err := os.Stat(filepath.Join(dir, f))
		assert.NoError(t, err, f)
	}
	n := 0
	for _, a := range []string{"raft", "bully", "etcd"} {
		if _, err := os.Stat(filepath.Join(dir, "timeline-"+a+".png")); err == nil {
			n++
		}
	}
	assert.Equal(t, 2, n, "the two algorithms besides the featured run's")
	html, err := os.ReadFile(filepath.Join(dir, "report.html"))
	require.NoError(t, err)
	assert.Contains(t, string(html), "Leadership timeline — partition · etcd")
	assert.Contains(t, string(html), "Leadership timeline — partition · bully")
}
