package hunt

import (
	"testing"

	"go.uber.org/goleak"

	_ "github.com/electsim/electsim/algorithms/builtin" // the hunts hunt electsim's own algorithms
)

// TestMain fails the package if a test leaves a goroutine behind (a batch's
// runs, a context's AfterFunc).
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
