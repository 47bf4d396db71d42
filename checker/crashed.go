package checker

import (
	"fmt"

	"github.com/electsim/electsim/sim"
)

// checkCrashed reports the run's crash, if any: a node's handler panicked
// or broke the engine's contract (Input.Failure). The run stopped at that
// event, so the other checks judge only the trace up to it.
func (c *checker) checkCrashed() Check {
	ch := Check{Name: CheckCrashed}
	if f := c.in.Failure; f != nil {
		v := Violation{At: f.At, End: f.At, Details: f.String(), Stack: f.Stack,
			Explanation: fmt.Sprintf("t=%v: the run stopped at this event; the trace and every other check end here.", f.At)}
		if f.Node != sim.None {
			v.Nodes, v.NodeIDs = []string{f.NodeName}, []sim.NodeID{f.Node}
		}
		c.add(&ch, v)
	}
	return c.finish(ch, "no handler panicked or broke the engine's contract", "the run crashed (%d)")
}
