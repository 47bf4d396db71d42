package sim

import "strconv"

// record turns one trace record into Perfetto events. A node's lifecycle
// records open and close its slices (down, paused, leader); every other
// record of a node is an instant on its track (event), and a record of no
// node goes to the faults track.
func (x *pfExport) record(r *Record) {
	n := x.node(r.Node)
	if n == nil {
		x.global(r)
		return
	}
	tid := x.tid(r.Node)
	switch r.Type {
	case RecStart:
		x.start(n, r, tid)
	case RecCrash:
		n.started = true
		x.endLead(r.Node, r.At, "crash")
		x.endPause(r.Node, r.At, "crash", -1)
		n.down, n.downAt, n.downWhy = true, r.At, "crash"
	case RecPause:
		n.paused, n.pauseAt = true, r.At
	case RecResume:
		x.endPause(r.Node, r.At, "resume", r.A)
	case RecLead:
		x.endLead(r.Node, r.At, "new lead record")
		n.leading, n.leadAt, n.epoch, n.token, n.leadWall = true, r.At, r.Epoch, r.Token, r.Wall
	case RecStepDown:
		x.endLead(r.Node, r.At, r.Detail)
	default:
		x.event(r, tid)
	}
}

// start closes the node's down slice (a restart after a crash, or a first
// start as a restart: it was down from time 0) and marks the start.
func (x *pfExport) start(n *pfNode, r *Record, tid int) {
	if n.down || (!n.started && r.A == 1) {
		why := n.downWhy
		if !n.down {
			why = "started down"
		}
		x.slice("state", "down", tid, n.downAt, r.At)
		x.argStr("cause", why)
		x.done()
		n.down = false
	}
	n.started = true
	name := "start"
	if r.A == 1 {
		name = "restart"
	}
	x.instant("lifecycle", name, tid, r.At, false)
	if r.Detail != "" {
		x.argStr("detail", r.Detail)
		x.argInt("restored_bytes", r.B)
	}
	x.done()
}

// event is a node's record that opens no slice: an instant with its
// arguments on the node's track, closed here (a delivery draws its
// message, a fault or note goes to the faults track).
func (x *pfExport) event(r *Record, tid int) {
	switch r.Type {
	case RecDeliver:
		x.deliver(r, tid)
		return
	case RecDrop:
		kind := x.kindName(r.Kind)
		x.instant("drop", "drop "+kind, tid, r.At, false)
		x.argStr("from", x.s.NodeName(r.Peer))
		x.argStr("kind", kind)
		x.argStr("reason", r.Reason.String())
		x.argInt("sent_ns", int64(r.SentAt))
	case RecTimer:
		x.instant("timer", "timer "+x.s.TimerName(r.Node, int(r.A)), tid, r.At, false)
		x.argInt("tag", r.A)
		x.argInt("id", r.B)
	case RecPersist:
		x.instant("disk", "persist", tid, r.At, false)
		x.argInt("bytes", r.A)
		x.argInt("durable_at_ns", r.B)
	case RecPersistDone:
		x.instant("disk", "persist_done", tid, r.At, false)
		x.argInt("bytes", r.A)
	case RecBelieve:
		x.believe(r, tid)
	case RecEffect:
		x.instant("effect", r.Name, tid, r.At, false)
		x.otherArgs(r)
		x.argWall(r.Wall)
	case RecFault, RecNote:
		x.global(r)
		return
	default:
		x.instant("other", r.Type.String(), tid, r.At, false)
		x.otherArgs(r)
	}
	x.done()
}

// believe is an instant naming the leader the node believes in.
func (x *pfExport) believe(r *Record, tid int) {
	leader := "none"
	if r.Peer != None {
		leader = x.s.NodeName(r.Peer)
	}
	x.instant("belief", "believe "+leader+" e="+strconv.FormatInt(r.Epoch, 10), tid, r.At, false)
	x.argStr("leader", leader)
	x.argInt("epoch", r.Epoch)
	x.argWall(r.Wall)
}

// deliver draws a delivered message: a zero-length slice at the sender
// when it was sent and one at the receiver when it arrived, joined by a
// flow arrow (only when the sender is a node).
func (x *pfExport) deliver(r *Record, tid int) {
	x.flows++
	kind := x.kindName(r.Kind)
	if p := x.node(r.Peer); p != nil {
		x.slice("msg", kind, x.tid(r.Peer), r.SentAt, r.SentAt)
		x.argStr("to", x.s.NodeName(r.Node))
		x.argStr("kind", kind)
		x.done()
		x.flow("s", kind, x.tid(r.Peer), r.SentAt, x.flows)
		x.done()
	}
	x.slice("msg", kind, tid, r.At, r.At)
	x.argStr("from", x.s.NodeName(r.Peer))
	x.argStr("kind", kind)
	if r.Epoch != 0 {
		x.argInt("epoch", r.Epoch)
	}
	x.argInt("latency_ns", int64(r.At-r.SentAt))
	x.done()
	if x.node(r.Peer) != nil {
		x.flow("f", kind, tid, r.At, x.flows)
		x.done()
	}
}
