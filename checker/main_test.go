package checker

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if a test leaves a goroutine behind: porcupine
// checks in goroutines of its own and must have finished when Run returns.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
