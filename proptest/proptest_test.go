package proptest

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/electsim/electsim/faults"
	"github.com/electsim/electsim/sim"
)

// A false property is refuted, and rapid shrinks the counterexample to the
// smallest failing value (50), which the output shows.
func TestRefuteFindsAndShrinks(t *testing.T) {
	c := Refute(t, 100, func(t *rapid.T) {
		x := rapid.IntRange(0, 1000).Draw(t, "x")
		if x >= 50 {
			Fail(t, "x = %d is not below 50", x)
		}
	})
	require.NotNil(t, c)
	out := strings.Join(c.Output, "\n")
	assert.Contains(t, out, "[rapid] draw x: 50")
	assert.Contains(t, out, Marker+"x = 50 is not below 50")
	assert.Contains(t, c.Message, "-rapid.seed=")
}

// refute reports an error when the property holds, and when rapid fails for
// another reason than a violation (a panic): neither proves the suite has teeth.
func TestRefuteRejectsHoldingOrPanickingProperty(t *testing.T) {
	defer override("rapid.nofailfile", "true", false)()
	_, err := refute(t.Name(), 20, func(t *rapid.T) { rapid.IntRange(0, 10).Draw(t, "x") })
	require.ErrorContains(t, err, "no counterexample in 20 checks")
	_, err = refute(t.Name(), 20, func(t *rapid.T) {
		if rapid.IntRange(0, 10).Draw(t, "x") > 3 {
			panic("boom")
		}
	})
	require.ErrorContains(t, err, "not with a property violation")
	require.ErrorContains(t, err, "boom")
}

// checks honours the suite default unless the user gave -rapid.checks or
// RAPID_CHECKS (neither is set in go test ./...).
func TestChecksDefault(t *testing.T) {
	if user.checks || testing.Short() {
		t.Skip("sizes given by the user")
	}
	assert.Equal(t, 7, checks(7))
}

// Every drawn schedule converts into faults the injector accepts, stays
// sorted, and prints one line per fault.
func TestScheduleIsValid(t *testing.T) {
	Check(t, 50, func(t *rapid.T) {
		k := rapid.IntRange(2, 6).Draw(t, "k")
		g := Gen{Candidates: k, Nodes: k + 1, Horizon: 5 * time.Second, LeaderTargets: true, AllTargets: true, Wipe: true}
		sc := g.Schedule().Draw(t, "schedule")
		s := sim.New(sim.Config{})
		for i := 0; i <= k; i++ {
			s.AddNode(Names(k, "svc")[i], idle{})
		}
		ids := IDs(k + 1)
		_, err := faults.New(s, faults.Environment{Candidates: ids[:k], Store: sim.None, Resource: sim.None}, sc.Faults(ids), nil)
		if err != nil {
			t.Fatalf("%v\n%v", err, sc)
		}
		for i := 1; i < len(sc.Ops); i++ {
			if sc.Ops[i].At < sc.Ops[i-1].At {
				t.Fatalf("unsorted: %v", sc)
			}
		}
		if len(sc.Ops) > 0 && strings.Count(sc.String(), "\n") != len(sc.Ops)-1 {
			t.Fatalf("one line per fault: %q", sc.String())
		}
		sc.Inject(s, faults.Environment{Candidates: ids[:k], Store: sim.None, Resource: sim.None}, ids, sim.Time(5*time.Second))
		s.RunUntil(sim.Time(6 * time.Second))
	})
}

// The schedule prints as a person would write it.
func TestScheduleString(t *testing.T) {
	sc := Schedule{Ops: []Op{
		{At: 1200 * time.Millisecond, For: 3 * time.Second, Kind: Pause, Node: Leader},
		{At: 2 * time.Second, For: time.Second, Kind: Split, Side: []int{0, 2}},
		{At: 3 * time.Second, Kind: Restart, Node: 1, Wipe: true},
		{At: 4 * time.Second, For: time.Second, Kind: Clock, Node: 1, Percent: 150},
		{At: 5 * time.Second, For: time.Second, Kind: Offset, Node: 0, Offset: -2 * time.Second},
		{At: 6 * time.Second, For: time.Second, Kind: Loss, Percent: 20},
	}}
	assert.Equal(t, `at 1.200s for 3.000s: pause leader
at 2.000s for 1.000s: split {n0,n2} from the rest
at 3.000s: restart n1 (disk wiped)
at 4.000s for 1.000s: clock n1 rate 1.50
at 5.000s for 1.000s: offset n0 by -2s
at 6.000s for 1.000s: loss 20% on every link`, sc.String())
}

// Watch sees overlapping tenures (split-brain) and two leaders of one epoch.
func TestWatch(t *testing.T) {
	s := sim.New(sim.Config{})
	a := s.AddNode("a", &leadAt{at: time.Second, epoch: 1, stop: 3 * time.Second})
	b := s.AddNode("b", &leadAt{at: 2 * time.Second, epoch: 1, stop: 4 * time.Second})
	w := NewWatch(s, []sim.NodeID{a, b})
	s.RunUntil(sim.Time(5 * time.Second))
	w.Finish()
	require.Len(t, w.Overlaps, 1)
	assert.Equal(t, "a (epoch 1) and b (epoch 1) all acted as leader from 2.000s to 3.000s (1s)", w.Overlaps[0].String(s))
	require.Len(t, w.Conflicts, 1)
	assert.Equal(t, "a and b both led epoch 1 (b from 2.000s)", w.Conflicts[0].String(s))
	assert.Equal(t, 2, w.Leads)
	assert.Empty(t, w.Leading())
	assert.Contains(t, w.Timeline(0), "2.000s b leads epoch 1 (token 1)")
}

type idle struct{}

func (idle) Start(sim.Env, []byte)    {}
func (idle) OnMessage(sim.Message)    {}
func (idle) OnTimer(sim.TimerID, int) {}

// leadAt leads epoch from at until stop (its monotonic clock).
type leadAt struct {
	env      sim.Env
	at, stop time.Duration
	epoch    int64
}

func (n *leadAt) Start(env sim.Env, _ []byte) {
	n.env = env
	env.SetTimer(n.at, 0)
	env.SetTimer(n.stop, 1)
}
func (n *leadAt) OnMessage(sim.Message) {}
func (n *leadAt) OnTimer(_ sim.TimerID, tag int) {
	if tag == 0 {
		n.env.ActAsLeader(n.epoch, n.epoch)
	} else {
		n.env.StopLeading("done")
	}
}

// Uniform stays in range, reaches both ends and spreads its draws evenly
// (rapid's own integers would put most of them in the bottom sixteenth).
func TestUniform(t *testing.T) {
	counts := make([]int, 4)
	g := Uniform(0, 9999)
	for i := 0; i < 400; i++ {
		v := g.Example(i)
		require.True(t, v >= 0 && v <= 9999, "out of range: %d", v)
		counts[v/2500]++
	}
	for q, c := range counts {
		assert.Greater(t, c, 50, "quarter %d: %v", q, counts)
	}
	assert.Equal(t, int64(5), Uniform(5, 5).Example(1))
	biased := make([]int, 4)
	for i := 0; i < 400; i++ {
		biased[rapid.Int64Range(0, 9999).Example(i)/2500]++
	}
	assert.Greater(t, biased[0], 250, "rapid's own generator favours small values: %v", biased)
}
