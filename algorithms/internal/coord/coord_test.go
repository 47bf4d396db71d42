package coord

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/sim"
	"github.com/electsim/electsim/sim/simtest"
)

// effects records the typed effects a service emits, on top of the
// recording environment.
type effects struct {
	*simtest.Env
	got []sim.Effect
}

func (e *effects) Effect(x sim.Effect) { e.got = append(e.got, x); e.Env.Effect(x) }

func newEnv() *effects {
	return &effects{Env: simtest.New(0, []string{"s", "n1", "n2"}, 1)}
}

func TestAvailabilityEmitsTheMatchingFact(t *testing.T) {
	env := newEnv()
	Availability(env, true)
	Availability(env, false)
	require.Len(t, env.got, 2)
	assert.Equal(t, EffectUnavailable, env.got[0].Name)
	assert.Equal(t, sim.FactServiceDown, env.got[0].Fact)
	assert.Equal(t, EffectAvailable, env.got[1].Name)
	assert.Equal(t, sim.FactServiceUp, env.got[1].Fact)
	assert.Equal(t, int64(sim.None), env.got[0].A)
}

func TestTimerAimsAtTheEarliestDeadline(t *testing.T) {
	env := newEnv()
	var tm Timer
	var e Earliest
	e.Consider(int64(5 * time.Second))
	e.Consider(int64(2 * time.Second))
	e.Consider(int64(9 * time.Second))
	tm.Point(env, e)
	assert.Equal(t, "timer tag=0 in 2s\n", env.Output())

	// A later earliest deadline moves the one timer rather than adding one.
	env.Advance(time.Second)
	var later Earliest
	later.Consider(int64(4 * time.Second))
	tm.Point(env, later)
	assert.Equal(t, "timer tag=0 reset to 3s\n", env.Output())
	assert.Equal(t, "tag=0 in 3s", env.Timers())

	// A deadline already past fires at once.
	var past Earliest
	past.Consider(0)
	tm.Point(env, past)
	assert.Equal(t, "timer tag=0 reset to 0s\n", env.Output())

	// No deadline cancels it; after Fired, Point sets a fresh timer.
	tm.Point(env, Earliest{})
	assert.Equal(t, "timer tag=0 cancelled\n", env.Output())
	assert.Equal(t, "none", env.Timers())
	tm.Point(env, later)
	tm.Fired()
	tm.Point(env, later)
	assert.Equal(t, "timer tag=0 in 3s\ntimer tag=0 in 3s\n", env.Output())
}

func TestWatchesDedupePerClientAndKeyAndFireOnce(t *testing.T) {
	var w Watches
	w.Add("a", 1, 7, 10)
	w.Add("a", 2, 8, 20)
	w.Add("b", 1, 7, 30)
	w.Add("a", 1, 7, 11) // re-sent: replaces request 10
	type answer struct {
		who   sim.NodeID
		owner int64
		id    int64
	}
	var got []answer
	record := func(who sim.NodeID, owner, id int64) { got = append(got, answer{who, owner, id}) }
	w.Fire("a", record)
	assert.Equal(t, []answer{{2, 8, 20}, {1, 7, 11}}, got, "each answer names the session the watch was set in")

	got = nil
	w.Fire("a", record)
	assert.Empty(t, got, "fired watches are forgotten")
	w.Fire("b", record)
	assert.Equal(t, []answer{{1, 7, 30}}, got)
}

// A session's watches end with it; another session's on the same node and
// key stay.
func TestWatchesDropOwner(t *testing.T) {
	var w Watches
	w.Add("a", 1, 7, 10)
	w.Add("b", 1, 7, 11)
	w.Add("a", 2, 9, 12)
	w.DropOwner(7)
	var got []int64
	for _, k := range []string{"a", "b"} {
		w.Fire(k, func(_ sim.NodeID, _, id int64) { got = append(got, id) })
	}
	assert.Equal(t, []int64{12}, got)
}

func TestBeliefReportsOnlyChanges(t *testing.T) {
	env := newEnv()
	var b Belief
	assert.Equal(t, sim.None, b.Holder(), "zero value believes in nobody")
	b.Report(env, sim.None, 0)
	assert.Empty(t, env.Output(), "the zero value is already none at epoch 0")
	b.Report(env, 1, 3)
	b.Report(env, 1, 3)
	assert.Equal(t, "believe n1 leads epoch 3\n", env.Output())
	assert.Equal(t, sim.NodeID(1), b.Holder())
	b.Report(env, 1, 4)
	b.Report(env, sim.None, 4)
	assert.Equal(t, "believe n1 leads epoch 4\nbelieve none leads epoch 4\n", env.Output())
	// Set reports even an unchanged belief.
	b.Set(env, sim.None, 4)
	assert.Equal(t, "believe none leads epoch 4\n", env.Output())
}

func TestArmRestartsAndDisarmClears(t *testing.T) {
	env := newEnv()
	var id sim.TimerID
	Arm(env, &id, time.Second, 7)
	Arm(env, &id, 2*time.Second, 7)
	assert.Equal(t, "timer tag=7 in 1s\ntimer tag=7 cancelled\ntimer tag=7 in 2s\n", env.Output())
	Disarm(env, &id)
	Disarm(env, &id)
	assert.Equal(t, "timer tag=7 cancelled\n", env.Output())
	assert.Zero(t, id)
}

func TestPersistJSON(t *testing.T) {
	env := newEnv()
	PersistJSON(env, struct{ Rev int64 }{7})
	assert.Equal(t, `{"Rev":7}`, string(env.Durable()))
}

func TestPendingMatchesOnlyTheAwaitedRequest(t *testing.T) {
	env := newEnv()
	type req struct{ id int64 }
	var p Pending[*req, string]
	fireAndForget := p.NextID()
	first := &req{id: p.NextID()}
	p.Await(env, first.id, "grant", first, time.Second, 3)
	assert.Equal(t, "timer tag=3 in 1s\n", env.Output())

	_, ok := p.Answer(env, fireAndForget)
	assert.False(t, ok, "an answer to another request is stale")

	// The timer fires: the request is handed back to send again, under a
	// new ID; the answer to the first sending is then stale.
	again, step, ok := p.Expired(sim.TimerID(1))
	require.True(t, ok)
	assert.Same(t, first, again)
	assert.Equal(t, "grant", step)
	second := &req{id: p.NextID()}
	p.Await(env, second.id, step, second, time.Second, 3)
	_, ok = p.Answer(env, first.id)
	assert.False(t, ok)

	step, ok = p.Answer(env, second.id)
	require.True(t, ok)
	assert.Equal(t, "grant", step)
	assert.Contains(t, env.Output(), "timer tag=3 cancelled\n")
	_, ok = p.Answer(env, second.id)
	assert.False(t, ok, "an answer is taken once")
	_, _, ok = p.Expired(sim.TimerID(2))
	assert.False(t, ok, "nothing awaited, nothing to resend")

	p.Await(env, p.NextID(), "put", &req{}, time.Second, 3)
	p.Drop(env)
	assert.Equal(t, "timer tag=3 in 1s\ntimer tag=3 cancelled\n", env.Output())
	_, _, ok = p.Expired(sim.TimerID(3))
	assert.False(t, ok)
}
