package contract

import "strings"

// exclusionCheck is the check that says two nodes never lead at once.
const exclusionCheck = "split_brain"

// networkClasses are the classes that strike a whole network rather than
// one node: a contract that is void under one of them promises nothing
// about exclusion under an ordinary network failure, which a design review
// must be told before it reads a clean verdict.
var networkClasses = []FaultClass{Partition, Loss, Link, ServiceDown}

// Caveat says, for people, what a contract does not promise about two
// nodes acting as leader at once: "promises no exclusion at all" without a
// split_brain guarantee, "promises no exclusion under partition, loss"
// when network-wide classes void it, "" when only faults of the nodes
// involved do (a pause, a clock) or none. simrun list, the summary, the
// report and hunt print it (docs/checkers.md, "Excuses").
func (c Contract) Caveat() string {
	g, ok := c.For(exclusionCheck)
	if !ok {
		return "promises no exclusion at all: two nodes may act as leader at once under any fault"
	}
	var under []string
	for _, cls := range networkClasses {
		if g.Excuses(cls) {
			under = append(under, cls.String())
		}
	}
	if len(under) == 0 {
		return ""
	}
	return "promises no exclusion under " + strings.Join(under, ", ")
}
