package contracttest

import (
	"time"

	"github.com/electsim/electsim/sim"
)

// Values is a registry.Values over a plain map (time.Duration, bool, int,
// float64, string, []int64 by key), for calling a Contract directly.
type Values map[string]any

// Has implements registry.Values.
func (m Values) Has(k string) bool { _, ok := m[k]; return ok }

// Duration implements registry.Values.
func (m Values) Duration(k string) time.Duration { d, _ := m[k].(time.Duration); return d }

// DurationRange implements registry.Values: a single duration.
func (m Values) DurationRange(k string) (lo, hi time.Duration) { d := m.Duration(k); return d, d }

// Bool implements registry.Values.
func (m Values) Bool(k string) bool { b, _ := m[k].(bool); return b }

// Int implements registry.Values.
func (m Values) Int(k string) int { i, _ := m[k].(int); return i }

// Float implements registry.Values.
func (m Values) Float(k string) float64 { f, _ := m[k].(float64); return f }

// String implements registry.Values.
func (m Values) String(k string) string { s, _ := m[k].(string); return s }

// Nodes implements registry.Values: none.
func (m Values) Nodes(string) []sim.NodeID { return nil }

// Ints implements registry.Values.
func (m Values) Ints(k string) []int64 { i, _ := m[k].([]int64); return i }
