package sim

import "time"

// Send implements Env.
func (n *nodeState) Send(m Message) {
	s := n.s
	if m.To < 0 || int(m.To) >= len(s.nodes) {
		contract("%s sent %v to unknown node %d", n.name, m.Kind, m.To)
	}
	if int(m.Kind) >= MaxKinds || s.kindHash[m.Kind] == 0 { // 0 for kind 0 and every kind not registered when the run started
		contract("%s sent unregistered message kind %d (register kinds with sim.RegisterKind at package initialisation)", n.name, uint16(m.Kind))
	}
	m.From = n.id
	s.stats.Sent[m.Kind]++
	if len(n.pending) > 0 {
		// Held in the process until the pending disk write is durable. Test
		// pending, not barrier > now: a write due now whose completion event
		// has not run yet is not durable, and the depart entry queued here
		// sorts after that completion (higher seq).
		ref := s.allocMsg()
		slot := &s.msgs[ref]
		slot.m = m
		slot.srcInc = n.inc
		s.push(n.barrier, evDepart, int16(n.id), ref)
		return
	}
	s.transmit(&m)
}

// transmit puts m on its link at the current time.
func (s *Sim) transmit(m *Message) { s.transmitSent(m, s.now, 0) }

// isStream reports whether m travels on a TCP connection (Streams).
func (s *Sim) isStream(m *Message) bool { return s.nodes[m.From].stream || s.nodes[m.To].stream }

// transmitSent puts m, first sent at sentAt and retransmitted after cuts
// tries times, on its link now. A stream's message meets a cut link as
// TCP's segment does: it is sent again at the next retransmission timeout
// (resendLater), until tcp_retries2 retransmissions have failed.
func (s *Sim) transmitSent(m *Message, sentAt Time, tries uint8) {
	l := s.net.at(m.From, m.To)
	stream := s.isStream(m)
	if !l.up {
		if stream && tries < tcpRetries2 {
			s.resendLater(m, sentAt, tries)
			return
		}
		s.drop(m, sentAt, DropPartitionAtSend)
		return
	}
	var resent time.Duration
	if s.netRand.Chance(l.dropThresh) {
		if !stream {
			s.drop(m, sentAt, DropLoss)
			return
		}
		var ok bool
		if resent, ok = s.retransmission(l); !ok {
			s.drop(m, sentAt, DropLoss)
			return
		}
	}
	s.schedule(m, l, resent, sentAt, tries)
	// The duplicate is drawn for a stream too, so that a run draws the
	// same numbers whichever nodes stream; TCP delivers one copy.
	if s.netRand.Chance(l.dupThresh) && !stream {
		s.stats.Duplicated[m.Kind]++
		s.schedule(m, l, 0, sentAt, tries)
	}
}

// resendLater queues m's next retransmission (tries so far), one
// retransmission timeout from now, from the sender's current incarnation:
// a sender that crashes meanwhile takes its connection with it.
func (s *Sim) resendLater(m *Message, sentAt Time, tries uint8) {
	ref := s.allocMsg()
	slot := &s.msgs[ref]
	slot.m, slot.sentAt, slot.tries = *m, sentAt, tries+1
	slot.srcInc = s.nodes[m.From].inc
	s.push(s.now.Add(rtoAfter(tries)), evResend, int16(m.From), ref)
}

// resend sends a stream's message again (evResend), unless its sender
// crashed since (its connection is gone).
func (s *Sim) resend(e *event) {
	slot := &s.msgs[e.ref]
	m, sent, tries, inc := slot.m, slot.sentAt, slot.tries, slot.srcInc
	s.freeMsg(e.ref)
	if n := s.nodes[m.From]; inc != n.inc || !n.up {
		s.drop(&m, sent, DropSenderCrashed)
		return
	}
	s.transmitSent(&m, sent, tries)
}

// rtoAfter is TCP's retransmission timeout after tries retransmissions:
// TCP_RTO_MIN doubled each time, at most TCP_RTO_MAX.
func rtoAfter(tries uint8) time.Duration {
	rto := tcpRTOMin
	for range tries {
		rto = min(2*rto, tcpRTOMax)
	}
	return rto
}

// TCP's retransmission timeout: Linux's minimum to start with, doubled
// after each retransmission (TCP_RTO_MIN), and the retransmissions before
// the connection is given up (net.ipv4.tcp_retries2's default, 15).
const (
	tcpRTOMin   = 200 * time.Millisecond
	tcpRTOMax   = 120 * time.Second
	tcpRetries2 = 15
)

// retransmission is how long TCP takes to get a segment the link lost
// through: the timeouts of every retransmission until one is not lost
// (each as likely to be lost as the first), and false if tcp_retries2
// retransmissions were all lost (the connection is reset: the message is
// lost).
func (s *Sim) retransmission(l *link) (time.Duration, bool) {
	var waited time.Duration
	for k := range uint8(tcpRetries2) {
		waited += rtoAfter(k)
		if !s.netRand.Chance(l.dropThresh) {
			return waited, true
		}
	}
	return 0, false
}

// schedule draws a latency and queues one delivery of m (first sent at
// sentAt, retransmitted after cuts tries times) over l, after extra (a
// stream's retransmissions of lost segments).
func (s *Sim) schedule(m *Message, l *link, extra time.Duration, sentAt Time, tries uint8) {
	at := s.now.Add(l.latency.Sample(&s.netRand) + extra)
	if l.fifo {
		if at < l.lastDeliver {
			at = l.lastDeliver
		}
		l.lastDeliver = at
	}
	ref := s.allocMsg()
	slot := &s.msgs[ref]
	slot.m = *m
	slot.sentAt, slot.tries = sentAt, tries
	slot.srcInc = s.nodes[m.From].inc
	slot.dstInc = s.nodes[m.To].inc
	s.push(at, evDeliver, int16(m.To), ref)
}

func (s *Sim) drop(m *Message, sentAt Time, why DropReason) {
	s.stats.Dropped[m.Kind]++
	s.stats.DropReasons[why]++
	s.emitMsg(RecDrop, why, m, sentAt)
}

// depart releases a message that waited for its sender's disk write.
func (s *Sim) depart(e *event) {
	slot := &s.msgs[e.ref]
	n := s.nodes[slot.m.From]
	if slot.srcInc != n.inc {
		m := slot.m
		s.freeMsg(e.ref)
		s.drop(&m, s.now, DropSenderCrashed)
		return
	}
	if n.paused {
		n.pauseBuf = append(n.pauseBuf, *e)
		return
	}
	m := slot.m
	s.freeMsg(e.ref)
	s.transmit(&m)
}

// deliver hands a due message to its destination. network is false for a
// message that already arrived while its node was paused.
func (s *Sim) deliver(e *event, network bool) {
	slot := &s.msgs[e.ref]
	dst := s.nodes[e.node]
	if network && !s.net.at(slot.m.From, slot.m.To).up {
		m, sent, tries, inc := slot.m, slot.sentAt, slot.tries, slot.srcInc
		s.freeMsg(e.ref)
		if src := s.nodes[m.From]; s.isStream(&m) && tries < tcpRetries2 && inc == src.inc && src.up {
			s.resendLater(&m, sent, tries) // TCP sends the lost segment again
			return
		}
		s.drop(&m, sent, DropPartitionInFlight)
		return
	}
	if network && s.hostKind[slot.m.Kind] {
		if a := hostAgent(dst.node); a != nil {
			s.deliverHost(e, a, dst)
			return
		}
	}
	if !dst.up || slot.dstInc != dst.inc {
		m := slot.m
		sent := slot.sentAt
		s.freeMsg(e.ref)
		s.drop(&m, sent, DropDestDown)
		return
	}
	if dst.paused {
		e.kind = evLocal
		dst.pauseBuf = append(dst.pauseBuf, *e)
		return
	}
	s.stats.Events++
	s.stats.Delivered[slot.m.Kind]++
	s.emitMsg(RecDeliver, DropNone, &slot.m, slot.sentAt)
	// Handed over straight from the slab (the callee gets its own copy);
	// the slot is freed after, so a send in the handler cannot reuse it.
	ref := e.ref
	dst.node.OnMessage(slot.m)
	s.guard() // before the free: a Failure names the message
	s.freeMsg(ref)
}

// deliverHost hands a host kind to the destination's HostAgent: the host
// is up whatever its process's state (crashed, restarted, paused).
func (s *Sim) deliverHost(e *event, a HostAgent, dst *nodeState) {
	slot := &s.msgs[e.ref]
	s.stats.Events++
	s.stats.Delivered[slot.m.Kind]++
	s.emitMsg(RecDeliver, DropNone, &slot.m, slot.sentAt)
	ref := e.ref
	a.OnHostMessage(hostOf{dst}, slot.m)
	s.guard()
	s.freeMsg(ref)
}
