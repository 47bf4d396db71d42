package hunt

import (
	"testing"

	"go.uber.org/goleak"

	_ "github.com/electsim/electsim/algorithms/builtin" // the hunts hunt electsim's own algorithms
	"github.com/electsim/electsim/internal/bugzoo"
	"github.com/electsim/electsim/registry"
)

// TestMain registers the bug zoo (its planted bugs are what a search must
// find: raft's own persist=false is a setting its contract excuses under
// restarts, so it is no bug to hunt) and fails the package if a test leaves
// a goroutine behind (a batch's runs, a context's AfterFunc).
func TestMain(m *testing.M) {
	if err := bugzoo.Register(registry.Default); err != nil {
		panic(err)
	}
	goleak.VerifyTestMain(m)
}
