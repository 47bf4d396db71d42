package ring

import "github.com/electsim/electsim/sim"

// The message payloads, with named fields. They ride in sim.Message's value
// fields (no allocation per message; collect-all's ID list is the Body); the
// kinds' sim.Fields name those slots after these fields
// (TestPayloadsNameTheirFields).

// lap is the payload of ELECTION and COORDINATOR as they go round the ring:
// the round, the candidate (ELECTION) or leader (COORDINATOR) ID, this
// hop's sequence number (acknowledged by KindAck), and the lap's origin and
// hop count packed into one value (pack, unpack).
type lap struct {
	Round         int64
	ID            sim.NodeID
	HopSeq        int64
	OriginAndHops int64
}

// into writes the payload into m, keeping its kind, addressing and Body.
func (p lap) into(m *sim.Message) {
	m.Term, m.Index, m.A, m.B = p.Round, int64(p.ID), p.HopSeq, p.OriginAndHops
}

func (p lap) message(kind sim.MsgKind) sim.Message {
	m := sim.Message{Kind: kind}
	p.into(&m)
	return m
}

func lapOf(m *sim.Message) lap {
	return lap{Round: m.Term, ID: sim.NodeID(m.Index), HopSeq: m.A, OriginAndHops: m.B}
}

// ack acknowledges one hop of a lap: its round and sequence number.
type ack struct {
	Round  int64
	HopSeq int64
}

func (p ack) message(to sim.NodeID) sim.Message {
	return sim.Message{Kind: KindAck, To: to, Term: p.Round, A: p.HopSeq}
}

func ackOf(m *sim.Message) ack { return ack{Round: m.Term, HopSeq: m.A} }

// heartbeat is the leader's liveness signal: the round it leads.
type heartbeat struct {
	Round int64
}

func (p heartbeat) message(to sim.NodeID) sim.Message {
	return sim.Message{Kind: KindHeartbeat, To: to, Term: p.Round}
}

func heartbeatOf(m *sim.Message) heartbeat { return heartbeat{Round: m.Term} }
