package sim_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if any test leaves a goroutine behind; the engine
// itself must never start one (design.md, "The engine").
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
