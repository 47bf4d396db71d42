package raftelect

import "fmt"

// Role is a node's state in the election protocol (Raft §5.1, Figure 4, plus
// the pre-candidate state of thesis §9.6).
type Role uint8

// The roles.
const (
	// Follower answers requests and waits for heartbeats.
	Follower Role = iota
	// PreCandidate asks for pre-votes without changing its term (PreVote only).
	PreCandidate
	// Candidate has incremented its term and asks for votes.
	Candidate
	// Leader sends heartbeats.
	Leader
)

var roleNames = [...]string{"follower", "pre-candidate", "candidate", "leader"}

// String names the role.
func (r Role) String() string {
	if int(r) < len(roleNames) {
		return roleNames[r]
	}
	return fmt.Sprintf("role(%d)", uint8(r))
}
