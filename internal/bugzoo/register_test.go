package bugzoo_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/checker"
	"github.com/electsim/electsim/contract"
	"github.com/electsim/electsim/internal/bugzoo"
	"github.com/electsim/electsim/registry"
	"github.com/electsim/electsim/sim"
)

// TestRegisterCopiesTheBaseContract: each zoo entry is its base's
// descriptor under a new name with the base's Contract function, so the
// zoo bug is held to the real algorithm's promises; a base without one
// gives a zoo entry without one (not some contract of the zoo's own).
func TestRegisterCopiesTheBaseContract(t *testing.T) {
	reg := &registry.Registry{}
	promise := contract.Contract{Guarantees: []contract.Guarantee{{Check: checker.CheckElectionSafety, Source: "test"}}}
	for _, a := range registry.Default.All() {
		if strings.HasPrefix(a.Name, "zoo-") {
			continue
		}
		c := *a
		if c.Name == "raft" {
			c.Contract = func(registry.Values) contract.Contract { return promise }
		} else {
			c.Contract = nil
		}
		require.NoError(t, reg.Register(c))
	}
	require.NoError(t, bugzoo.Register(reg))
	require.NoError(t, bugzoo.Register(reg), "a second Register keeps the entries")
	for _, b := range bugzoo.Bugs() {
		if b.Base == "" {
			continue // a mode with no election: nothing registered
		}
		z, ok := reg.Lookup(b.Name)
		require.True(t, ok, b.Name)
		base, _ := reg.Lookup(b.Base)
		assert.Equal(t, base.Params, z.Params, b.Name)
		assert.Equal(t, base.LeaseStore, z.LeaseStore, b.Name)
		if b.Base == "raft" {
			assert.Equal(t, promise, z.ContractOf(nil), b.Name)
		} else {
			assert.True(t, z.ContractOf(nil).Empty(), b.Name)
		}
	}
}

// TestRegisterNeedsTheBase: a zoo bug whose base algorithm is not
// registered is an error, not a silent skip.
func TestRegisterNeedsTheBase(t *testing.T) {
	err := bugzoo.Register(&registry.Registry{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "is not registered")
}

// TestBugsAreDescribed: every bug has a unique zoo- name, a citation, a
// summary, a check the checker knows and a targeted scenario file.
func TestBugsAreDescribed(t *testing.T) {
	seen := map[string]bool{}
	require.GreaterOrEqual(t, len(bugzoo.Bugs()), 12)
	for _, b := range bugzoo.Bugs() {
		assert.True(t, strings.HasPrefix(b.Name, "zoo-"), b.Name)
		assert.False(t, seen[b.Name], "duplicate %s", b.Name)
		seen[b.Name] = true
		assert.NotEmpty(t, b.Summary, b.Name)
		assert.NotEmpty(t, b.Citation, b.Name)
		assert.Contains(t, append(append(slices.Clone(checker.CheckNames), checker.QueueCheckNames...), checker.ContractCheckNames...), b.Catches, b.Name)
		_, err := os.Stat(filepath.Join("testdata", b.Scenario))
		assert.NoError(t, err, b.Name)
	}
}

// TestWrappedNodesAreFreshPerBoot: a zoo factory builds a new node on
// every call (the scenario builds candidates afresh on every boot), so no
// layer state survives a crash by accident.
func TestWrappedNodesAreFreshPerBoot(t *testing.T) {
	require.NoError(t, bugzoo.Register(registry.Default))
	for _, name := range []string{"zoo-raft-votedfor", "zoo-k8s-late-stop", "zoo-bully-deaf-to-answer"} {
		a, ok := registry.Default.Lookup(name)
		require.True(t, ok)
		f, err := a.Build(emptyValues{}, 3, sim.NewRand(1, "test"))
		require.NoError(t, err)
		peers := registry.CandidateIDs(3)
		assert.NotSame(t, f(peers, registry.Services{LeaseStore: 3}), f(peers, registry.Services{LeaseStore: 3}), name)
	}
}

// emptyValues are a run's values with nothing set: every default.
type emptyValues struct{ registry.Values }

func (emptyValues) Has(string) bool { return false }
