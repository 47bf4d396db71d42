package contracttest

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	_ "github.com/electsim/electsim/algorithms/builtin" // every registered contract
	"github.com/electsim/electsim/checker"
	"github.com/electsim/electsim/contract"
	"github.com/electsim/electsim/registry"
	"github.com/electsim/electsim/sim"
)

// TestMain fails the package if a test leaves a goroutine behind.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestRegisteredContractsNameCheckerChecks: every guarantee a registered
// algorithm declares (with its defaults and a latency bound) names a check
// the checker has and only real fault classes, once per check.
func TestRegisteredContractsNameCheckerChecks(t *testing.T) {
	promised := 0
	for _, a := range registry.Default.All() {
		c := a.ContractOf(Values{}).Resolve(contract.Network{Max: 10 * time.Millisecond, Bounded: true})
		seen := map[string]bool{}
		for _, g := range c.Guarantees {
			assert.Contains(t, checker.CheckNames, g.Check, a.Name)
			assert.False(t, seen[g.Check], "%s promises %s twice", a.Name, g.Check)
			seen[g.Check] = true
			for _, u := range g.Unless {
				assert.True(t, slices.Contains(contract.Classes(), u), "%s: class %v", a.Name, u)
			}
			assert.NotEmpty(t, g.Source, a.Name)
			promised++
		}
	}
	assert.Positive(t, promised)
}

// stub leads at once and stops at 1 s.
type stub struct{ env sim.Env }

func (s *stub) Start(env sim.Env, _ []byte) {
	s.env = env
	env.ActAsLeader(1, 1)
	env.SetTimer(time.Second, 1)
}
func (s *stub) OnMessage(sim.Message)    {}
func (s *stub) OnTimer(sim.TimerID, int) { s.env.StopLeading("done") }

// TestLateStopDelaysTheStop: the planted bug moves StopLeading late later
// and leaves everything else alone.
func TestLateStopDelaysTheStop(t *testing.T) {
	s := sim.New(sim.Config{Seed: 1, MaxTime: time.Minute})
	rec := &sim.Recorder{}
	s.AddSink(rec)
	s.AddNode("n0", &lateNode{inner: &stub{}, late: 3 * time.Second})
	s.RunFor(10 * time.Second)
	var stops []time.Duration
	for _, r := range rec.Records {
		if r.Type == sim.RecStepDown {
			stops = append(stops, r.At.Sub(0))
		}
	}
	require.Len(t, stops, 1)
	assert.Equal(t, 4*time.Second, stops[0])
}
