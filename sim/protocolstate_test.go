package sim_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/sim"
)

// effector records one effect when it starts.
type effector struct{ e sim.Effect }

func (n effector) Start(env sim.Env, _ []byte) { env.Effect(n.e) }
func (effector) OnMessage(sim.Message)         {}
func (effector) OnTimer(sim.TimerID, int)      {}

// A protocol-state effect is an observation: it reaches the sinks but not
// the trace hash, so an algorithm that starts declaring its states hashes
// as before. Any other effect is behaviour and is hashed.
func TestProtocolStateNotHashed(t *testing.T) {
	hash := func(e *sim.Effect) (uint64, []sim.Record) {
		s := sim.New(sim.Config{Seed: 1})
		rec := &sim.Recorder{}
		s.AddSink(rec)
		if e != nil {
			s.AddNode("a", effector{*e})
		} else {
			s.AddNode("a", idle{})
		}
		s.RunUntil(sim.Time(1))
		return s.TraceHash(), rec.Records
	}
	bare, _ := hash(nil)
	state, recs := hash(&sim.Effect{Name: "x.vote_granted", A: 0, Fact: sim.FactProtocolState})
	require.Equal(t, bare, state, "a protocol state is not hashed")
	var seen bool
	for _, r := range recs {
		seen = seen || r.Type == sim.RecEffect && r.Fact == sim.FactProtocolState
	}
	require.True(t, seen, "the sinks see it")
	other, _ := hash(&sim.Effect{Name: "x.vote_granted", A: 0})
	require.NotEqual(t, bare, other, "an effect without the fact is hashed")
}
