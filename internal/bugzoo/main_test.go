package bugzoo_test

import (
	"testing"

	"go.uber.org/goleak"

	_ "github.com/electsim/electsim/algorithms/builtin" // the zoo varies electsim's own algorithms
)

// TestMain fails the package if a test leaves a goroutine behind (the
// checker's porcupine runs must have finished when a run returns).
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
