package lease

// ZooRedlockHalfQuorum plants a Redlock quorum bug in n: it takes a lock
// held on len(masters)/2 masters (2 of 5), the quorum a client computes
// from the masters it happens to be connected to (3 of 5 connected: 3/2+1
// = 2; SPSCommerce/redlock-py#6) instead of from every master, so two
// clients can hold the lock at once with no fault at all. A test hook for
// internal/bugzoo only: no scenario parameter reaches it, and while it is
// off quorum pays one boolean test.
func (n *Node) ZooRedlockHalfQuorum() { n.cfg.zooHalfQuorum = true }

// zooQuorum is the planted quorum (ZooRedlockHalfQuorum).
func (n *Node) zooQuorum() int { return max(1, len(n.stores)/2) }
