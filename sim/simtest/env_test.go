package simtest

import (
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/electsim/electsim/sim"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var kindPing = sim.RegisterKind("simtest.Ping")

// echo answers every message and re-arms a timer on each one.
type echo struct{ env sim.Env }

func (e *echo) Start(env sim.Env, restored []byte) {
	e.env = env
	env.SetTimer(time.Second, 7)
	if restored != nil {
		env.Effect(sim.Effect{Name: "restored", A: int64(len(restored))})
	}
}
func (e *echo) OnMessage(m sim.Message) {
	e.env.Persist([]byte{1, 2, 3})
	e.env.Send(sim.Message{Kind: kindPing, To: m.From, Term: m.Term + 1, Flag: true})
}
func (e *echo) OnTimer(id sim.TimerID, tag int) { e.env.ActAsLeader(1, 1) }

// The recording Env prints what the node does, fires timers only when told
// (moving the clock to their deadline), and hands the durable state back on
// a restart.
func TestEnvRecordsAndDrives(t *testing.T) {
	e := New(0, []string{"a", "b"}, 1)
	n := &echo{}
	e.Boot(n)
	assert.Equal(t, "timer tag=7 in 1s\n", e.Output())
	e.Deliver(sim.Message{Kind: kindPing, From: 1, Term: 4})
	assert.Equal(t, "persist 3 bytes\nsend simtest.Ping a->b term=5 flag\n", e.Output())
	assert.Equal(t, "", e.Output(), "Output drains")
	e.Advance(300 * time.Millisecond)
	assert.Equal(t, "tag=7 in 700ms", e.Timers())
	require.Error(t, e.Fire("nope"))
	require.NoError(t, e.Fire("tag=7"))
	assert.Equal(t, time.Second, e.Now(), "firing moves the clock to the deadline")
	assert.Equal(t, "lead epoch=1 token=1\n", e.Output())
	assert.Equal(t, "none", e.Timers())
	e.Crash()
	e.Boot(n)
	assert.Equal(t, "crashed\ntimer tag=7 in 1s\neffect restored a=3 b=0 c=0\n", e.Output())
	m, ok := e.LastSent()
	require.True(t, ok)
	assert.Equal(t, sim.NodeID(1), m.To)
}

var kindNamed = sim.RegisterKind("simtest.Named", sim.Fields{Term: "round", B: "weight", Flag: "ok"})

// Message reads back what FormatMessage prints, by the kind's field names
// and by slot; Step runs the shared commands and leaves the others to the
// harness.
func TestStepAndMessage(t *testing.T) {
	e := New(0, []string{"a", "b"}, 1)
	n := &echo{}
	e.Boot(n)
	e.Output()
	cmd := func(s string) *datadriven.TestData {
		d := &datadriven.TestData{}
		for i, f := range strings.Fields(s) {
			if i == 0 {
				d.Cmd = f
				continue
			}
			k, v, has := strings.Cut(f, "=")
			a := datadriven.CmdArg{Key: k}
			if has {
				a.Vals = []string{v}
			}
			d.CmdArgs = append(d.CmdArgs, a)
		}
		return d
	}
	m, err := e.Message(cmd("deliver from=n2 kind=simtest.Named round=3 weight=9 index=4 ok"))
	require.NoError(t, err)
	assert.Equal(t, "simtest.Named b->a round=3 index=4 weight=9 ok", e.FormatMessage(m), "what Message read, FormatMessage prints")
	assert.Equal(t, sim.Message{Kind: kindNamed, From: 1, Term: 3, Index: 4, B: 9, Flag: true}, m)
	_, err = e.Message(cmd("deliver from=n2 kind=simtest.Named votes=1"))
	require.EqualError(t, err, `deliver: simtest.Named has no field "votes"`)
	_, err = e.Message(cmd("deliver kind=nope"))
	require.Error(t, err)

	out, handled, err := e.Step(cmd("deliver from=n2 kind=simtest.Ping term=1"), n)
	require.True(t, handled)
	require.NoError(t, err)
	assert.Equal(t, "persist 3 bytes\nsend simtest.Ping a->b term=2 flag\n", out)
	out, _, _ = e.Step(cmd("timers"), n)
	assert.Equal(t, "tag=7 in 1s\n", out)
	_, _, err = e.Step(cmd("advance by=soon"), n)
	require.Error(t, err)
	out, _, err = e.Step(cmd("fire timer=tag=7"), n)
	require.NoError(t, err)
	assert.Equal(t, "lead epoch=1 token=1\n", out)
	out, _, _ = e.Step(cmd("crash"), n)
	assert.Equal(t, "crashed\n", out)
	out, _, _ = e.Step(cmd("restart"), n)
	assert.Equal(t, "timer tag=7 in 1s\neffect restored a=3 b=0 c=0\n", out)
	_, handled, _ = e.Step(cmd("reply ok"), n)
	assert.False(t, handled, "a harness's own command is left to it")
}
