package faults_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if a test leaves a goroutine behind; the fault
// layer, like the engine, must never start one (docs/engine.md).
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
