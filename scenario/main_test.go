package scenario

import (
	"testing"

	"go.uber.org/goleak"

	_ "github.com/electsim/electsim/algorithms/builtin" // the shipped scenarios use electsim's own algorithms
)

// TestMain fails the package if a test leaves a goroutine behind. Runs end
// with the checker's porcupine checks, which run in goroutines of their own
// and must have finished when Run returns (no ignore list is needed: with
// the default 10 s timeout none of the shipped scenarios times out).
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
