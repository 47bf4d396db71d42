package simrun

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/scenario"
	"github.com/electsim/electsim/sim"
)

// A long run reports how much of its simulated time is done, its speed and
// an ETA; it checks the wall clock only each thousandth of the run.
func TestRunProgressReports(t *testing.T) {
	var b bytes.Buffer
	p := &runProgress{w: &b, name: "simrun", label: "run", total: sim.Time(100 * time.Second), step: sim.Time(100 * time.Millisecond),
		start: time.Now().Add(-10 * time.Second)}
	p.at(sim.Time(50 * time.Second))
	assert.Regexp(t, `^simrun: run: simulated 50s of 1m40s \(50\.0%\), [0-9]+ simulated s per s, ETA (9|10|11)s\n$`, b.String())
	b.Reset()
	p.at(sim.Time(50*time.Second + 50*time.Millisecond))
	assert.Empty(t, b.String(), "within a step of the last look: no clock read, no report")

	require.Nil(t, newRunProgress(&b, "run", time.Hour, true), "quiet")
}

// The progress sink only reads: a run traces the same with it.
func TestRunProgressLeavesTheTrace(t *testing.T) {
	sc, err := scenario.Load(partition)
	require.NoError(t, err)
	plain, err := sc.Run(scenario.RunOptions{Seed: 3})
	require.NoError(t, err)
	r, err := sc.Build(scenario.RunOptions{Seed: 3})
	require.NoError(t, err)
	var b bytes.Buffer
	p := &runProgress{w: &b, name: "simrun", label: "run", total: sim.Time(sc.Duration + sc.Settle.For), step: sim.Time(time.Second), start: time.Now().Add(-time.Hour)}
	r.Sim.AddSink(p)
	r.Execute(scenario.RunOptions{Seed: 3})
	require.Equal(t, plain.Sim.TraceHashHex(), r.Sim.TraceHashHex())
	require.Contains(t, b.String(), "simrun: run: simulated ", "it reported along the way")
}
