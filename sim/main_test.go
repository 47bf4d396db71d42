package sim_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if any test leaves a goroutine behind; the engine
// itself must never start one (docs/engine.md).
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
