package reality

import (
	"testing"

	"go.uber.org/goleak"

	_ "github.com/electsim/electsim/algorithms/builtin" // the simulated side runs electsim's lease model
)

// TestMain fails the package if a test leaves a goroutine behind (a
// proxy's forwarding, a process's waiter).
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
