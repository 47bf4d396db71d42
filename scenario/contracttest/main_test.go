// Package contracttest holds the consensus algorithms' contracts to runs:
// their overlap bounds against an independent computation over many seeds,
// and planted bugs (registered here only) that the contracts must report as
// breaches. It is a package of its own so that the planted algorithms never
// reach the shipped catalogue's tests.
package contracttest

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if a test leaves a goroutine behind.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
