package simrun

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestProgressStatus: a progress report says how far, how fast, how long
// is left at that rate and what was found so far.
func TestProgressStatus(t *testing.T) {
	assert.Equal(t, "120/1000 runs (12%), 2.0s, 60 runs/s, ETA 14.7s, no findings", progressStatus(120, 1000, 0, 2))
	assert.Equal(t, "500/1000 runs (50%), 1.0s, 500 runs/s, ETA 1s, 1 failing run", progressStatus(500, 1000, 1, 1))
	assert.Equal(t, "1000/1000 runs (100%), 4.0s, 250 runs/s, 3 failing runs", progressStatus(1000, 1000, 3, 4))
	assert.Equal(t, "0/10 runs (0%), 0.0s, no findings", progressStatus(0, 10, 0, 0))
}

// TestProgressCountsFindings: the progress lines count runs that did not
// meet the expectations.
func TestProgressCountsFindings(t *testing.T) {
	var b bytes.Buffer
	p := newProgress(&b, 3, false)
	p.every = 0
	p.add(true)
	p.add(false)
	p.add(false)
	assert.Contains(t, b.String(), "3/3 runs (100%)")
	assert.Contains(t, b.String(), "2 failing runs")
}
