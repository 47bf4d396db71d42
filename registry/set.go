package registry

import (
	"time"

	"github.com/electsim/electsim/sim"
)

// The setters copy a value into a Config field when the scenario set it,
// so every other field keeps its default.

// SetDuration sets *out to v's key, if present.
func SetDuration(v Values, key string, out *time.Duration) {
	if v.Has(key) {
		*out = v.Duration(key)
	}
}

// SetBool sets *out to v's key, if present.
func SetBool(v Values, key string, out *bool) {
	if v.Has(key) {
		*out = v.Bool(key)
	}
}

// SetInt sets *out to v's key, if present.
func SetInt(v Values, key string, out *int) {
	if v.Has(key) {
		*out = v.Int(key)
	}
}

// SetFloat sets *out to v's key, if present.
func SetFloat(v Values, key string, out *float64) {
	if v.Has(key) {
		*out = v.Float(key)
	}
}

// PerNode checks that a per-candidate list has one entry per candidate (or
// none).
func PerNode(key string, got, candidates int) error {
	if got != 0 && got != candidates {
		return Fail("", []string{key}, "%s has %d entries for %d candidates", key, got, candidates)
	}
	return nil
}

// CandidateIDs are the IDs of n candidates: 0..n-1.
func CandidateIDs(n int) []sim.NodeID {
	ids := make([]sim.NodeID, n)
	for i := range ids {
		ids[i] = sim.NodeID(i)
	}
	return ids
}
