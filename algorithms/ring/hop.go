package ring

import "github.com/electsim/electsim/sim"

// This file moves ring messages: each hop is acknowledged, and a successor
// that does not acknowledge within AckTimeout is marked dead and skipped.

// successor returns the position of the first node after the node's own that
// is not marked dead, or the node's own position if every other node is.
func (n *Node) successor() int {
	for i := 1; i < len(n.order); i++ {
		q := (n.me + i) % len(n.order)
		if !n.dead[q] {
			return q
		}
	}
	return n.me
}

// forward sends a ring message one hop. With every other node marked dead,
// the message has gone round the (one-node) ring and is handled at once.
func (n *Node) forward(m sim.Message) {
	to := n.successor()
	if to == n.me {
		m.From = n.self
		n.onRing(m)
		return
	}
	n.seq++
	p := lapOf(&m)
	p.HopSeq = n.seq
	p.into(&m)
	m.To = n.order[to]
	n.env.Send(m)
	t := n.env.SetTimer(n.cfg.AckTimeout, tagAck)
	n.pending = append(n.pending, hop{seq: n.seq, m: m, to: to, timer: t})
}

// onAck retires the acknowledged hop.
func (n *Node) onAck(m sim.Message) {
	for i, h := range n.pending {
		if h.seq == ackOf(&m).HopSeq && n.order[h.to] == m.From {
			n.env.CancelTimer(h.timer)
			n.pending = append(n.pending[:i], n.pending[i+1:]...)
			return
		}
	}
}

// onAckTimeout marks the silent successor dead and resends to the next node.
func (n *Node) onAckTimeout(id sim.TimerID) {
	for i, h := range n.pending {
		if h.timer == id {
			n.pending = append(n.pending[:i], n.pending[i+1:]...)
			n.dead[h.to] = true
			n.env.Effect(sim.Effect{Name: "ring.skip", Detail: "successor did not acknowledge", A: int64(n.order[h.to])})
			n.forward(h.m)
			return
		}
	}
}
