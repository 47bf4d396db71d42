package raftelect

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestUpToDate checks the comparison of §5.4.1: "If the logs have last entries
// with different terms, then the log with the later term is more up-to-date.
// If the logs end with the same term, then whichever log is longer is more
// up-to-date." A voter grants when the candidate's log is at least as
// up-to-date as its own.
func TestUpToDate(t *testing.T) {
	for _, c := range []struct {
		candTerm, candIndex, ownTerm, ownIndex int64
		want                                   bool
	}{
		{2, 3, 1, 9, true},  // later last term wins despite a shorter log
		{1, 9, 2, 3, false}, // older last term loses despite a longer log
		{2, 5, 2, 4, true},  // same term: longer wins
		{2, 4, 2, 4, true},  // identical: at least as up-to-date
		{2, 3, 2, 4, false}, // same term, shorter
		{0, 0, 0, 0, true},  // empty logs
	} {
		assert.Equal(t, c.want, upToDate(c.candTerm, c.candIndex, c.ownTerm, c.ownIndex),
			"candidate (term %d, index %d) vs own (term %d, index %d)", c.candTerm, c.candIndex, c.ownTerm, c.ownIndex)
	}
}
