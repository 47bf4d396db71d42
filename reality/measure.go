package reality

import (
	"time"

	"github.com/electsim/electsim/checker"
)

// Measure is what one run showed, real or simulated, read from the
// checker's report alone: the same fields for both worlds.
type Measure struct {
	// SplitBrain: the split_brain check found an overlap.
	SplitBrain bool
	// Overlap is the total time two candidates both acted as leader
	// (checker.Report.Overlaps).
	Overlap time.Duration
	// Failover is the first completed failover's latency, from the fault
	// that removed the leader to the next recognised leader; HasFailover
	// says there was one.
	Failover    time.Duration
	HasFailover bool
	// Tenures counts tenures begun.
	Tenures int
}

// MeasureReport reads a Measure from a checker report.
func MeasureReport(rep checker.Report) Measure {
	var m Measure
	if c, ok := rep.Check(checker.CheckSplitBrain); ok {
		m.SplitBrain = c.Status == checker.StatusViolated
	}
	for _, o := range rep.Overlaps {
		m.Overlap += o.To.Sub(o.From)
	}
	for _, f := range rep.Failovers {
		if f.Completed {
			m.Failover, m.HasFailover = f.Latency, true
			break
		}
	}
	m.Tenures = rep.Tenures
	return m
}
