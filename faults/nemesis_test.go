package faults_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/faults"
	"github.com/electsim/electsim/sim"
)

// fiveLeaders is a 5-candidate script in which leadership moves every 10s.
func fiveLeaders() [][]act {
	sc := make([][]act, 5)
	for k := 0; k < 30; k++ {
		i := k % 5
		sc[i] = append(sc[i], lead(sec(float64(10*k+1)), int64(k+1)), stop(sec(float64(10*k+10))))
	}
	return sc
}

// nemesisRun runs 5 scripted candidates (plus a store) under fs and ns for
// 200s with settle at 150s and returns the harness and the injections.
func nemesisRun(t *testing.T, seed uint64, fs []faults.Fault, ns ...faults.Nemesis) (*harness, []faults.Applied) {
	t.Helper()
	h := newHarness(t, opts{seed: seed, store: true}, fiveLeaders()...)
	in := h.inject(fs, ns...)
	in.Settle(at(150))
	h.s.RunUntil(at(200))
	return h, in.Applied()
}

func kindsOf(app []faults.Applied) map[string]int {
	m := map[string]int{}
	for _, a := range app {
		m[a.Kind]++
	}
	return m
}

// A nemesis draws only the kinds it was given, at the rate Every sets.
func TestNemesisDrawsOnlyChosenKinds(t *testing.T) {
	_, app := nemesisRun(t, 1, nil, faults.Nemesis{Kinds: []string{faults.KindPause, faults.KindClock},
		Every: faults.Between(time.Second, 3*time.Second), For: faults.Between(sec(0.5), 2*time.Second)})
	assert.Equal(t, map[string]int{"pause": 38, "clock": 30}, kindsOf(app))
	for _, a := range app {
		assert.LessOrEqual(t, a.At, at(150), "nothing after settle")
	}
}

// Swarm testing: per seed the nemesis draws a non-empty subset of its kinds
// and a weight for each — deterministically, and differently across seeds.
func TestSwarmPicksSubsetPerSeed(t *testing.T) {
	all := []string{faults.KindPartition, faults.KindPause, faults.KindCrash, faults.KindRestart, faults.KindClock, faults.KindLink, faults.KindDisk}
	swarm := func(seed uint64) ([]string, []int) {
		h := newHarness(t, opts{seed: seed}, nil, nil, nil)
		in := h.inject(nil, faults.Nemesis{Kinds: all, Swarm: true, Every: faults.Dur(time.Second), For: faults.Dur(time.Second)})
		return in.Swarm(0)
	}
	distinct := map[string]bool{}
	for seed := uint64(1); seed <= 8; seed++ {
		k, w := swarm(seed)
		require.NotEmpty(t, k)
		require.Len(t, w, len(k))
		for i, x := range k {
			assert.Contains(t, all, x)
			assert.True(t, w[i] >= 1 && w[i] <= 4)
		}
		k2, w2 := swarm(seed)
		assert.Equal(t, k, k2, "same seed, same subset")
		assert.Equal(t, w, w2)
		distinct[strings.Join(k, ",")] = true
	}
	assert.Len(t, distinct, 7, "eight seeds, seven different subsets")
	k, w := swarm(2)
	assert.Equal(t, []string{"partition", "pause", "restart", "link", "disk"}, k)
	assert.Equal(t, []int{1, 2, 4, 2, 4}, w)

	// The run draws only the swarm's kinds, and records the choice.
	h, app := nemesisRun(t, 2, nil, faults.Nemesis{Kinds: all, Swarm: true, Every: faults.Dur(2 * time.Second), For: faults.Dur(time.Second)})
	for kind := range kindsOf(app) {
		assert.Contains(t, k, kind)
	}
	assert.Equal(t, []string{"0.000s fault.swarm nemesis[0]: swarm kinds partition×1 pause×2 restart×4 link×2 disk×4"}, h.notes("fault.swarm"))
}

// Ranges draw from the fault stream: the same seed gives the same faults,
// another seed different ones.
func TestSameSeedSameFaults(t *testing.T) {
	fs := func() []faults.Fault {
		f1, f2 := faults.Between(time.Second, 5*time.Second), faults.Between(sec(0.5), sec(1.5))
		off, rate := faults.Between(-2*time.Second, 2*time.Second), faults.FloatRange{Min: 0.5, Max: 1.5}
		return []faults.Fault{
			{At: faults.Between(10*time.Second, 20*time.Second), For: &f1, Pause: &faults.Pause{Target: faults.Random()}},
			{At: faults.Between(25*time.Second, 26*time.Second), For: &f2,
				Clock: &faults.Clock{Target: faults.Random(), Offset: &off, Rate: &rate}},
		}
	}
	details := func(app []faults.Applied) []string {
		var out []string
		for _, a := range app {
			out = append(out, a.At.String()+" "+a.Detail)
		}
		return out
	}
	_, a1 := nemesisRun(t, 1, fs())
	_, b1 := nemesisRun(t, 1, fs())
	_, a2 := nemesisRun(t, 2, fs())
	assert.Equal(t, details(a1), details(b1))
	assert.NotEqual(t, details(a1), details(a2))
	assert.Equal(t, []string{
		"18.784s faults[0]: pause n3 (random) for 3.158s",
		"25.063s faults[1]: clock n1 (random): offset +1.082s, rate 1.27675 for 1.465s",
	}, details(a1))
}

// A nemesis has its own stream: adding an explicit fault (or a second
// nemesis) does not change what it draws.
func TestNemesisIndependentOfOtherFaults(t *testing.T) {
	nem := faults.Nemesis{Kinds: []string{faults.KindPause, faults.KindDisk, faults.KindLink, faults.KindPartition},
		Targets: []faults.Target{faults.Random(), faults.Nodes(1)}, Every: faults.Between(time.Second, 4*time.Second),
		For: faults.Between(time.Second, 2*time.Second)}
	only := func(app []faults.Applied, src string) []string {
		var out []string
		for _, a := range app {
			if a.Source == src {
				out = append(out, a.At.String()+" "+a.Detail)
			}
		}
		return out
	}
	_, alone := nemesisRun(t, 3, nil, nem)
	extra := []faults.Fault{{At: faults.Between(5*time.Second, 50*time.Second), For: durp(20 * time.Second),
		Disk: &faults.Disk{Target: faults.Random(), Fsync: sim.Constant(time.Millisecond)}}}
	_, withFault := nemesisRun(t, 3, extra, nem)
	_, withTwo := nemesisRun(t, 3, extra, nem, faults.Nemesis{Kinds: []string{faults.KindClock}, Every: faults.Dur(7 * time.Second), For: faults.Dur(time.Second)})
	require.NotEmpty(t, only(alone, "nemesis[0]"))
	assert.Equal(t, only(alone, "nemesis[0]"), only(withFault, "nemesis[0]"))
	assert.Equal(t, only(alone, "nemesis[0]"), only(withTwo, "nemesis[0]"))
	assert.NotEmpty(t, only(withTwo, "nemesis[1]"))
}

// Every injected fault is in the trace with its resolution, and every revert
// too (issue 5: "Every injected fault is recorded in the trace with what it
// resolved to").
func TestEveryFaultInTrace(t *testing.T) {
	h, app := nemesisRun(t, 4, nil, faults.Nemesis{Kinds: []string{faults.KindPartition, faults.KindPause, faults.KindCrash,
		faults.KindRestart, faults.KindClock, faults.KindLink, faults.KindDisk, faults.KindStoreUnavailable, faults.KindStoreFailover},
		Every: faults.Between(time.Second, 3*time.Second), For: faults.Between(time.Second, 5*time.Second)})
	require.Greater(t, len(app), 50)
	assert.Len(t, kindsOf(app), 8, "every kind came up (both store kinds are Kind store)")
	var notes []sim.Record
	for _, r := range h.rec.Records {
		if r.Type == sim.RecNote && strings.HasPrefix(r.Name, "fault.") && r.Name != faults.NoteRevert &&
			r.Name != faults.NoteSkip && r.Name != faults.NoteSettle {
			notes = append(notes, r)
		}
	}
	require.Len(t, notes, len(app))
	for i, a := range app {
		r := notes[i]
		assert.Equal(t, "fault."+a.Kind, r.Name)
		assert.Equal(t, a.At, r.At)
		assert.Equal(t, a.Detail, r.Detail)
		want := sim.None
		if len(a.Nodes) > 0 {
			want = a.Nodes[0]
		}
		assert.Equal(t, want, r.Node)
		if a.Reverted {
			found := false
			for _, x := range h.rec.Records {
				found = found || (x.Type == sim.RecNote && x.Name == faults.NoteRevert && x.At == a.RevertedAt &&
					strings.HasPrefix(x.Detail, a.Source+": "))
			}
			assert.True(t, found, "revert of %s", a.Detail)
		}
	}
}

// Applied entries turn into explicit faults that replay the same run: the
// engine's own records (everything but the fault layer's notes) are
// identical. This is what issue 8's shrinker relies on.
func TestExplicitReplaysNemesis(t *testing.T) {
	nem := faults.Nemesis{Kinds: []string{faults.KindPartition, faults.KindPause, faults.KindCrash, faults.KindRestart,
		faults.KindClock, faults.KindLink, faults.KindDisk, faults.KindStoreUnavailable},
		Every: faults.Between(time.Second, 4*time.Second), For: faults.Between(time.Second, 6*time.Second)}
	h1, app := nemesisRun(t, 5, nil, nem)
	var explicit []faults.Fault
	for _, a := range app {
		f := a.Explicit()
		require.NoError(t, f.Validate(), a.Detail)
		explicit = append(explicit, f)
	}
	h2, replay := nemesisRun(t, 5, explicit)
	require.Len(t, replay, len(app))
	for i := range app {
		assert.Equal(t, app[i].At, replay[i].At)
		assert.Equal(t, app[i].Kind, replay[i].Kind)
		assert.Equal(t, app[i].Nodes, replay[i].Nodes)
		assert.Equal(t, app[i].RevertedAt, replay[i].RevertedAt)
		assert.Equal(t, app[i].RevertedBy, replay[i].RevertedBy)
	}
	engine := func(h *harness) []sim.Record {
		return slices.DeleteFunc(slices.Clone(h.rec.Records), func(r sim.Record) bool {
			return r.Type == sim.RecNote && strings.HasPrefix(r.Name, "fault.")
		})
	}
	e1, e2 := engine(h1), engine(h2)
	require.Equal(t, len(e1), len(e2))
	for i := range e1 {
		require.Equal(t, e1[i], e2[i], "record %d", i)
	}
}
