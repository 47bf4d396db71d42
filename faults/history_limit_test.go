package faults_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/faults"
)

// LimitHistory keeps the first n injected faults, counts the others, and
// injects and traces exactly as a full history does (issue 29 point 3: a
// fault every millisecond would otherwise grow the featured run's memory
// for the whole run).
func TestLimitHistoryKeepsFirstN(t *testing.T) {
	run := func(limit int) (*faults.Injector, string) {
		h := newHarness(t, opts{seed: 3, store: true}, fiveLeaders()...)
		in := h.inject(nil, faults.Nemesis{Kinds: []string{faults.KindPartition, faults.KindPause},
			Every: faults.Dur(100 * time.Millisecond), For: faults.Dur(time.Second)})
		if limit > 0 {
			in.LimitHistory(limit)
		}
		in.Settle(at(20))
		h.s.RunUntil(at(30))
		return in, h.s.TraceHashHex()
	}
	full, fullHash := run(0)
	lim, limHash := run(10)
	all := full.Applied()
	require.Greater(t, len(all), 100, "the nemesis injected faults")
	assert.Equal(t, fullHash, limHash, "the same run")
	assert.Equal(t, all[:10], lim.Applied())
	assert.Equal(t, len(all)-10, lim.HistoryDropped())
	assert.Zero(t, full.HistoryDropped())
}
