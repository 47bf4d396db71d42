package faults

import (
	"maps"

	"github.com/electsim/electsim/sim"
)

// linkTable is a configuration per directed link (index from*n+to), held
// sparsely: def, and the links whose configuration differs from it. A
// dense table was two n×n copies of sim.LinkConfig per run (124 MB of a
// queue run's 208 MB live heap at a thousand workers, issue 39); most
// links keep the network's default for the whole run. Only read and
// written by index, never iterated: its map order reaches nothing.
type linkTable struct {
	def  sim.LinkConfig
	over map[int]sim.LinkConfig
}

// get is link i's configuration.
func (t *linkTable) get(i int) sim.LinkConfig {
	if c, ok := t.over[i]; ok {
		return c
	}
	return t.def
}

// set makes link i's configuration c.
func (t *linkTable) set(i int, c sim.LinkConfig) {
	if c == t.def {
		delete(t.over, i)
		return
	}
	if t.over == nil {
		t.over = map[int]sim.LinkConfig{}
	}
	t.over[i] = c
}

// clone is a copy of t.
func (t *linkTable) clone() linkTable { return linkTable{def: t.def, over: maps.Clone(t.over)} }
