package faults

import (
	"slices"

	"github.com/electsim/electsim/sim"
)

// Clock rates, link configurations and fsync latencies are layered: each
// active fault that changes one adds a layer, and the value in force is the
// scenario's default overlaid with the active layers in injection order. A
// revert removes its layer and re-applies what remains, so overlapping
// faults end in any order without undoing each other.

// rates are a node's clock rates in parts per billion.
type rates struct{ mono, wall int64 }

type clockLayer struct {
	seq        int
	node       sim.NodeID
	mono, wall int64 // 0 = unchanged
}

type linkLayer struct {
	seq     int
	mask    []bool // per directed link index from*n+to
	latency *sim.Dist
	drop    *float64
	dup     *float64
}

type diskLayer struct {
	seq   int
	node  sim.NodeID
	fsync sim.Dist
}

// applyClock sets the node's rates to what its layers say.
func (in *Injector) applyClock(id sim.NodeID) {
	want := in.clockBase[id]
	for _, l := range in.clockLayers {
		if l.node != id {
			continue
		}
		if l.mono != 0 {
			want.mono = l.mono
		}
		if l.wall != 0 {
			want.wall = l.wall
		}
	}
	cur := in.s.Clock(id)
	dm, dw := want.mono != cur.MonoRatePPB, want.wall != cur.WallRatePPB
	switch {
	case dm && dw && want.mono == want.wall:
		in.s.SetRate(id, want.mono)
	default:
		if dm {
			in.s.SetMonoRate(id, want.mono)
		}
		if dw {
			in.s.SetWallRate(id, want.wall)
		}
	}
}

func (in *Injector) dropClockLayers(seq int) {
	in.clockLayers = slices.DeleteFunc(in.clockLayers, func(l clockLayer) bool { return l.seq == seq })
}

// linkWant returns the configuration link i should have.
func (in *Injector) linkWant(i int) sim.LinkConfig {
	c := in.linkBase.get(i)
	for _, l := range in.linkLayers {
		if !l.mask[i] {
			continue
		}
		if l.latency != nil {
			c.Latency = *l.latency
		}
		if l.drop != nil {
			c.Drop = *l.drop
		}
		if l.dup != nil {
			c.Duplicate = *l.dup
		}
	}
	return c
}

// applyLinks brings the given links to what their layers say: one SetAllLinks
// record if every link changes to the same configuration, else one SetLink
// record per changed link.
func (in *Injector) applyLinks(idx []int) {
	n := in.s.NumNodes()
	var changed []int
	var want []sim.LinkConfig
	for _, i := range idx {
		if w := in.linkWant(i); w != in.linkCur.get(i) {
			changed = append(changed, i)
			want = append(want, w)
		}
	}
	if len(changed) == 0 {
		return
	}
	uniform := len(changed) == n*n
	for _, w := range want {
		uniform = uniform && w == want[0]
	}
	if uniform {
		in.s.SetAllLinks(want[0])
	} else {
		for k, i := range changed {
			in.s.SetLink(sim.NodeID(i/n), sim.NodeID(i%n), want[k])
		}
	}
	for k, i := range changed {
		in.linkCur.set(i, want[k])
	}
}

// applyDisk sets the node's fsync latency to what its layers say.
func (in *Injector) applyDisk(id sim.NodeID) {
	want := in.diskBase[id]
	for _, l := range in.diskLayers {
		if l.node == id {
			want = l.fsync
		}
	}
	if want != in.diskCur[id] {
		in.s.SetFsync(id, want)
		in.diskCur[id] = want
	}
}
