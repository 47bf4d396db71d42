package registry

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/electsim/electsim/sim"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func build(Values, int, *sim.Rand) (Factory, error) { return nil, nil }

// Register refuses what the loader could not use, keeps registration order
// and finds parameters by key.
func TestRegister(t *testing.T) {
	r := &Registry{}
	require.NoError(t, r.Register(Algorithm{Name: "a", Build: build, Params: []Param{{Key: "x", Kind: Int, Min: 1, Max: 2}}}))
	require.NoError(t, r.Register(Algorithm{Name: "b", Build: build}))
	assert.Equal(t, []string{"a", "b"}, r.Names())
	for _, bad := range []Algorithm{
		{Build: build},
		{Name: "c"},
		{Name: "a", Build: build},
		{Name: "d", Build: build, Params: []Param{{Key: "name"}}},
		{Name: "e", Build: build, Params: []Param{{Key: "x"}, {Key: "x"}}},
		{Name: "f", Build: build, Params: []Param{{Key: "k", Kind: Enum}}},
		{Name: "g", Build: build, Params: []Param{{Key: "k", Kind: Float, Min: 2, Max: 1}}},
	} {
		assert.Error(t, r.Register(bad), "%+v", bad)
	}
	a, ok := r.Lookup("a")
	require.True(t, ok)
	p, ok := a.Param("x")
	require.True(t, ok)
	assert.Equal(t, Int, p.Kind)
	_, ok = a.Param("y")
	assert.False(t, ok)
	assert.Panics(t, func() { r.MustRegister(Algorithm{Name: "b", Build: build}) })
}

// Protocol states are named, unique, lower-case words, and found by name.
func TestRegisterStates(t *testing.T) {
	r := &Registry{}
	require.NoError(t, r.Register(Algorithm{Name: "a", Build: build, States: []string{"vote_granted", "term_bumped2"}}))
	for _, bad := range [][]string{{""}, {"Vote"}, {"vote granted"}, {"x", "x"}, make([]string, MaxStates+1)} {
		assert.Error(t, r.Register(Algorithm{Name: "b", Build: build, States: bad}), "%q", bad)
	}
	a, _ := r.Lookup("a")
	i, ok := a.StateIndex("term_bumped2")
	assert.True(t, ok)
	assert.Equal(t, 1, i)
	_, ok = a.StateIndex("persisted")
	assert.False(t, ok)
}
