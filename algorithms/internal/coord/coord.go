// Package coord holds the mechanics the simulated coordination services
// (the lease store, etcd, ZooKeeper) and their clients share: one timer
// aimed at the earliest deadline, the availability effect store faults and
// the checker read, pending watches, JSON persistence, and a client's
// re-armable timers and leader belief. It names no algorithm.
package coord

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/electsim/electsim/sim"
)

// The availability effects every service records (Fact FactServiceDown /
// FactServiceUp; A is sim.None).
const (
	EffectUnavailable = "store.unavailable" // the service started ignoring requests
	EffectAvailable   = "store.available"   // the service serves requests again
)

// Availability records that the service became unavailable (on) or
// available again, with the typed fact the checker reads.
func Availability(env sim.Env, on bool) {
	name, fact := EffectAvailable, sim.FactServiceUp
	if on {
		name, fact = EffectUnavailable, sim.FactServiceDown
	}
	env.Effect(sim.Effect{Name: name, A: int64(sim.None), Fact: fact})
}

// Earliest collects deadlines (monotonic nanoseconds) and keeps the first.
type Earliest struct {
	ns int64
	ok bool
}

// Consider offers one deadline.
func (e *Earliest) Consider(ns int64) {
	if !e.ok || ns < e.ns {
		e.ns, e.ok = ns, true
	}
}

// Timer is a service's one engine timer, aimed at its earliest deadline.
type Timer struct {
	id    sim.TimerID
	armed bool
}

// Fired records that the timer went off.
func (t *Timer) Fired() { t.armed = false }

// Point aims the timer at e's deadline (at once if it has passed), or
// cancels it when e holds none.
func (t *Timer) Point(env sim.Env, e Earliest) {
	if !e.ok {
		if t.armed {
			env.CancelTimer(t.id)
			t.armed = false
		}
		return
	}
	d := time.Duration(max(e.ns-int64(env.Now()), 0))
	if t.armed && env.ResetTimer(t.id, d) {
		return
	}
	t.id, t.armed = env.SetTimer(d, 0), true
}

// Watches are pending answers to clients waiting for a key to go: one per
// client and key (a re-sent watch replaces the older one). Each belongs to
// an owner, the client's session (ZooKeeper) or lease (etcd): a real
// server answers a watch on the connection it came in on, so an answer
// must never reach a later process on the same node, and a session's
// watches end with it.
type Watches struct {
	list []watch
}

type watch struct {
	key   string
	who   sim.NodeID
	owner int64
	id    int64
}

// Add registers client who's request id, made in owner's session, waiting
// on key.
func (w *Watches) Add(key string, who sim.NodeID, owner, id int64) {
	w.list = slices.DeleteFunc(w.list, func(x watch) bool { return x.who == who && x.key == key })
	w.list = append(w.list, watch{key: key, who: who, owner: owner, id: id})
}

// Fire answers, and forgets, every watch on key.
func (w *Watches) Fire(key string, answer func(who sim.NodeID, owner, id int64)) {
	kept := w.list[:0]
	for _, x := range w.list {
		if x.key == key {
			answer(x.who, x.owner, x.id)
			continue
		}
		kept = append(kept, x)
	}
	w.list = kept
}

// DropOwner forgets owner's watches unanswered (its session ended).
func (w *Watches) DropOwner(owner int64) {
	w.list = slices.DeleteFunc(w.list, func(x watch) bool { return x.owner == owner })
}

// PersistJSON writes v, plain data, as the node's durable state.
func PersistJSON(env sim.Env, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // plain structs of ints and strings always marshal
	}
	env.Persist(b)
}

// Arm (re)starts a client timer: *t fires after d with tag.
func Arm(env sim.Env, t *sim.TimerID, d time.Duration, tag int) {
	if *t != 0 {
		env.CancelTimer(*t)
	}
	*t = env.SetTimer(d, tag)
}

// Disarm cancels a client timer, if set.
func Disarm(env sim.Env, t *sim.TimerID) {
	if *t != 0 {
		env.CancelTimer(*t)
		*t = 0
	}
}

// Belief is the leader a client last reported believing in. The zero
// value believes in nobody at epoch 0, as a freshly started client does
// (nothing is reported until that changes).
type Belief struct {
	holder1 int64 // the holder's ID + 1, so that the zero value is sim.None
	epoch   int64
}

// Report tells the engine the client now believes holder leads epoch, if
// that changed.
func (b *Belief) Report(env sim.Env, holder sim.NodeID, epoch int64) {
	if int64(holder)+1 == b.holder1 && epoch == b.epoch {
		return
	}
	b.holder1, b.epoch = int64(holder)+1, epoch
	env.BelieveLeader(holder, epoch)
}

// Set reports the belief whether or not it changed (client-go's
// maybeReportTransition decides by identity, not by holder and epoch).
func (b *Belief) Set(env sim.Env, holder sim.NodeID, epoch int64) {
	b.holder1, b.epoch = int64(holder)+1, epoch
	env.BelieveLeader(holder, epoch)
}

// Holder is the believed holder (sim.None before any report).
func (b *Belief) Holder() sim.NodeID { return sim.NodeID(b.holder1 - 1) }

// Pending is the one request a client awaits: its ID, the step its answer
// advances, and the request itself, sent again when its timer fires. R is
// the client's request type (a pointer), S its step type.
type Pending[R any, S any] struct {
	seq   int64 // the last request ID the client handed out
	id    int64 // the awaited request's ID, 0 when none
	step  S
	req   R
	timer sim.TimerID
}

// NextID numbers a request: every request the client sends, awaited or
// not, takes the next ID, so a late answer never matches a newer request.
func (p *Pending[R, S]) NextID() int64 {
	p.seq++
	return p.seq
}

// Await makes req, numbered id, the awaited request advancing step, and
// (re)arms its timer to fire after timeout with tag.
func (p *Pending[R, S]) Await(env sim.Env, id int64, step S, req R, timeout time.Duration, tag int) {
	p.id, p.step, p.req = id, step, req
	Arm(env, &p.timer, timeout, tag)
}

// Answer takes the answer to request id: if that is the awaited request,
// it is forgotten and its step returned; otherwise the answer is stale (the
// request timed out and was re-sent, or belongs to an older session).
func (p *Pending[R, S]) Answer(env sim.Env, id int64) (step S, ok bool) {
	if p.id == 0 || id != p.id {
		return step, false
	}
	step = p.step
	p.Drop(env)
	return step, true
}

// Expired reports, for timer id, the awaited request and step to send
// again, if id is its timer.
func (p *Pending[R, S]) Expired(id sim.TimerID) (req R, step S, ok bool) {
	if p.id == 0 || id != p.timer {
		return req, step, false
	}
	p.timer = 0
	return p.req, p.step, true
}

// Waiting reports whether a request is awaited.
func (p *Pending[R, S]) Waiting() bool { return p.id != 0 }

// Drop forgets the awaited request and cancels its timer.
func (p *Pending[R, S]) Drop(env sim.Env) {
	var zero R
	p.id, p.req = 0, zero
	Disarm(env, &p.timer)
}
