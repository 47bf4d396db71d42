package lease

// ZooExpiryByRemoteWall plants a k8s expiry bug in n: a candidate judges
// another holder's lease expired when the record's renewTime (the
// holder's wall clock) plus the lease duration is behind its own wall
// clock, instead of LeaseDuration after it last saw the record change by
// its own monotonic clock (what client-go does, and what
// kubernetes/client-go#448 and kubernetes/kubernetes#120824 proposed to
// change, refused because of clock skew). It is a test hook for
// internal/bugzoo only: no scenario parameter reaches it, and while it is
// off k8sValid pays one boolean test.
func (n *Node) ZooExpiryByRemoteWall() { n.cfg.zooRemoteWall = true }

// zooValidByRemoteWall is the planted expiry test (ZooExpiryByRemoteWall).
func (n *Node) zooValidByRemoteWall() bool {
	return n.k.observed.RenewTimeWallNs+n.k.observed.LeaseDurationNs > n.env.WallNanos()
}

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
