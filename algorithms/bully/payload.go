package bully

import "github.com/electsim/electsim/sim"

// epochClaim is the payload of every bully message: an epoch and the node
// that minted it (ELECTION and ANSWER carry the highest epoch the sender
// knows; COORDINATOR and HEARTBEAT the coordinator's own tenure). It rides
// in sim.Message's value fields (no allocation per message); the kinds'
// sim.Fields name those slots after these fields (TestPayloadNamesItsFields).
type epochClaim struct {
	Epoch       int64
	EpochMinter sim.NodeID
}

func (p epochClaim) message(kind sim.MsgKind, to sim.NodeID) sim.Message {
	return sim.Message{Kind: kind, To: to, Term: p.Epoch, Index: int64(p.EpochMinter)}
}

func epochClaimOf(m *sim.Message) epochClaim {
	return epochClaim{Epoch: m.Term, EpochMinter: sim.NodeID(m.Index)}
}
