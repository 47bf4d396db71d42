package bully

import "fmt"

// Role is a node's state in the bully protocol.
type Role uint8

// The roles.
const (
	// Follower accepts a coordinator and watches its heartbeats.
	Follower Role = iota
	// Electing has sent ELECTION to the higher nodes and waits AnswerTimeout
	// for an ANSWER.
	Electing
	// AwaitingCoordinator got an ANSWER and waits CoordinatorTimeout for the
	// COORDINATOR announcement.
	AwaitingCoordinator
	// Coordinator leads and sends heartbeats.
	Coordinator
)

var roleNames = [...]string{"follower", "electing", "awaiting-coordinator", "coordinator"}

// String names the role.
func (r Role) String() string {
	if int(r) < len(roleNames) {
		return roleNames[r]
	}
	return fmt.Sprintf("role(%d)", uint8(r))
}
