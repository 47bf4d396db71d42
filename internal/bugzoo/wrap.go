package bugzoo

import (
	"fmt"

	"github.com/electsim/electsim/registry"
	"github.com/electsim/electsim/sim"
)

// layer is the Env a wrapped node hands its algorithm: the engine's Env
// with some calls changed. A layer that arms timers of its own claims
// their firings through ownTimer.
type layer interface {
	sim.Env
	// ownTimer handles timer id if the layer armed it, and says so.
	ownTimer(id sim.TimerID) bool
}

// node runs an algorithm's node behind a layer built afresh at every
// Start (a restarted process keeps nothing of the layer either), and
// optionally filters the messages it is delivered.
type node struct {
	inner    sim.Node
	newLayer func(env sim.Env) layer
	// filter, if set, sees every delivered message first; false drops it.
	filter func(l layer, m *sim.Message) bool
	l      layer
}

// Start implements sim.Node.
func (w *node) Start(env sim.Env, restored []byte) {
	w.l = w.newLayer(env)
	w.inner.Start(w.l, restored)
}

// Inner names the algorithm's node, so the engine finds its host agent
// (sim.HostAgent), which the planted bug does not touch.
func (w *node) Inner() sim.Node { return w.inner }

// OnMessage implements sim.Node.
func (w *node) OnMessage(m sim.Message) {
	if w.filter != nil && !w.filter(w.l, &m) {
		return
	}
	w.inner.OnMessage(m)
}

// OnTimer implements sim.Node.
func (w *node) OnTimer(id sim.TimerID, tag int) {
	if w.l.ownTimer(id) {
		return
	}
	w.inner.OnTimer(id, tag)
}

// TimerName implements sim.TimerNamer for the algorithm's timers.
func (w *node) TimerName(tag int) string {
	if tag == zooTimerTag {
		return "zoo.delayed_stop"
	}
	if tn, ok := w.inner.(sim.TimerNamer); ok {
		return tn.TimerName(tag)
	}
	return ""
}

// Resign passes a graceful shutdown on (lease candidates have one; the
// cron layer and scenario shutdowns call it).
func (w *node) Resign() {
	if r, ok := w.inner.(interface{ Resign() }); ok {
		r.Resign()
	}
}

// zooTimerTag tags the layers' own timers (no algorithm uses it).
const zooTimerTag = 1 << 30

// plain is a layer that changes nothing by itself.
type plain struct{ sim.Env }

func (plain) ownTimer(sim.TimerID) bool { return false }

// wrapFactory returns a factory whose nodes are f's behind layers built
// by newLayer and filtered by filter (nil: none).
func wrapFactory(f registry.Factory, newLayer func(sim.Env) layer, filter func(layer, *sim.Message) bool) registry.Factory {
	return func(peers []sim.NodeID, svc registry.Services) sim.Node {
		return &node{inner: f(peers, svc), newLayer: newLayer, filter: filter}
	}
}

// hooked returns a factory whose nodes are f's with set applied to each:
// set type-asserts the algorithm's exported zoo hook and panics when the
// node has none (the algorithm changed under the zoo).
func hooked(f registry.Factory, set func(sim.Node)) registry.Factory {
	return func(peers []sim.NodeID, svc registry.Services) sim.Node {
		nd := f(peers, svc)
		set(nd)
		return nd
	}
}

// onBase is a Bug.wrap that builds the base algorithm's factory and hands
// it, with the run's values, to wrap.
func onBase(wrap func(f registry.Factory, v registry.Values) registry.Factory) func(buildFunc, registry.Values, int, *sim.Rand) (registry.Factory, error) {
	return func(base buildFunc, v registry.Values, n int, r *sim.Rand) (registry.Factory, error) {
		f, err := base(v, n, r)
		if err != nil {
			return nil, err
		}
		return wrap(f, v), nil
	}
}

// hook returns nd as T, an accessor or zoo hook the algorithm exports, and
// panics naming what when the node has none (the algorithm changed under
// the zoo).
func hook[T any](nd sim.Node, what string) T {
	h, ok := nd.(T)
	if !ok {
		panic(fmt.Sprintf("bugzoo: %T has no %s", nd, what))
	}
	return h
}
