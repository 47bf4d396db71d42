package hunt

import (
	"slices"
	"strconv"
	"strings"

	"github.com/electsim/electsim/faults"
)

// schedule is one run's plan: the strategy that drew it, the run seed, the
// configuration (cluster size, parameter overrides) and the faults added to
// the base scenario's own.
type schedule struct {
	strategy Strategy
	seed     uint64
	nodes    int      // 0: the base's
	params   []string // algorithm.KEY=VALUE overrides
	faults   []faults.Fault
}

// clone copies s deeply enough that mutating the copy's lists leaves s
// alone (faults share their immutable kind structs).
func (s schedule) clone() schedule {
	s.params = slices.Clone(s.params)
	s.faults = slices.Clone(s.faults)
	return s
}

// configKey names the schedule's configuration, for the cluster cache.
func (s *schedule) configKey() string {
	return strings.Join(append([]string{strconv.Itoa(s.nodes)}, s.params...), "\x00")
}
