package sim_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/sim"
)

// hookLog records what a LeadershipHook was told, each with the type of the
// newest trace record then (the hook runs right after the engine records).
type hookLog struct {
	rec    *sim.Recorder
	events []string
}

type logHook struct{ l *hookLog }

func (h logHook) Lead(epoch, token int64) {
	h.l.events = append(h.l.events, "lead", h.l.last())
}

func (h logHook) StopLead(why string) {
	h.l.events = append(h.l.events, "stop:"+why, h.l.last())
}

func (l *hookLog) last() string {
	if len(l.rec.Records) == 0 {
		return "no record"
	}
	return l.rec.Records[len(l.rec.Records)-1].Type.String()
}

// leadNode hooks its own Env at every Start (twice: the second must be
// refused), then leads, steps down twice (the second time without leading)
// on its timers.
type leadNode struct {
	l      *hookLog
	env    sim.Env
	hooked []bool
}

func (n *leadNode) Start(env sim.Env, _ []byte) {
	n.env = env
	h := env.(sim.LeadershipHooker)
	n.hooked = append(n.hooked, h.HookLeadership(logHook{n.l}), h.HookLeadership(logHook{n.l}))
	env.SetTimer(time.Millisecond, 1)
}

func (n *leadNode) OnMessage(sim.Message) {}

func (n *leadNode) OnTimer(_ sim.TimerID, tag int) {
	switch tag {
	case 1:
		n.env.ActAsLeader(3, 7)
		n.env.SetTimer(time.Millisecond, 2)
	case 2:
		n.env.StopLeading("resigned")
		n.env.StopLeading("again")
	}
}

// docs/engine.md, "Leadership hooks": the hook is told of every
// ActAsLeader and StopLeading, right after the engine recorded it (a
// StopLeading while not leading records nothing but is still told, as an
// Env wrapper would see it); a second hook is refused; a restart clears
// the hook, so the node hooks again from its Start.
func TestLeadershipHook(t *testing.T) {
	s := sim.New(sim.Config{})
	l := &hookLog{rec: &sim.Recorder{}}
	s.AddSink(l.rec)
	n := &leadNode{l: l}
	id := s.AddNode("n1", n)
	s.RunUntil(sim.Time(10 * time.Millisecond))
	require.Equal(t, []bool{true, false}, n.hooked, "first hook installed, second refused")
	require.Equal(t, []string{"lead", "lead", "stop:resigned", "step_down", "stop:again", "step_down"}, l.events,
		"told after each record; the second StopLeading records nothing")
	stepDowns := 0
	for _, r := range l.rec.Records {
		if r.Type == sim.RecStepDown {
			stepDowns++
		}
	}
	require.Equal(t, 1, stepDowns, "a StopLeading while not leading is not recorded")

	s.Crash(id)
	s.Restart(id, false)
	s.RunUntil(sim.Time(20 * time.Millisecond))
	require.Equal(t, []bool{true, false, true, false}, n.hooked, "a restart clears the hook")
	require.Len(t, l.events, 12, "the new incarnation's hook is told")
}
