package raftelect

// ZooCountLeaderTwice plants a CheckQuorum off-by-one in n: the leader
// counts itself twice when it checks for a quorum (the majority
// miscount of apache/kafka#16211), so a leader cut off with one follower
// of five keeps leading. It is a test hook for internal/bugzoo only: no
// scenario parameter reaches it, and while it is off checkQuorum pays
// one boolean test per election timeout.
func (n *Node) ZooCountLeaderTwice() { n.cfg.zooLeaderTwice = true }
