package reports

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Wilson95 against published values (Newcombe, "Two-sided confidence
// intervals for the single proportion", Stat. Med. 1998, Table I: 0/10
// gives 0–0.2775, 1/29 gives 0.0061–0.1718, 81/263 gives 0.2553–0.3662)
// and the edges.
func TestWilson95(t *testing.T) {
	for _, tc := range []struct {
		k, n   int
		lo, hi float64
	}{{0, 10, 0, 0.2775}, {1, 29, 0.0061, 0.1718}, {81, 263, 0.2553, 0.3662}, {29, 29, 0.8830, 1}} {
		lo, hi := Wilson95(tc.k, tc.n)
		assert.InDelta(t, tc.lo, lo, 5e-5, "%d/%d", tc.k, tc.n)
		assert.InDelta(t, tc.hi, hi, 5e-5, "%d/%d", tc.k, tc.n)
	}
	lo, hi := Wilson95(0, 0)
	assert.Equal(t, [2]float64{0, 1}, [2]float64{lo, hi})
}
