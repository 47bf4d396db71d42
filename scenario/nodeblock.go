package scenario

import "github.com/electsim/electsim/sim"

// blockName names node id within a mode's block of nodes: head at base,
// then count members at base+1.., named by member(k) (1-based). false for
// IDs outside the block. Celery mode's (redis, w1..wN) and Kubernetes
// mode's (apiserver, kubelet1..N) blocks share this shape.
func blockName(id, base sim.NodeID, head string, count int, member func(int) string) (string, bool) {
	switch {
	case id == base:
		return head, true
	case id > base && int(id-base) <= count:
		return member(int(id - base)), true
	}
	return "", false
}
