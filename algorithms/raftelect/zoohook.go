package raftelect

// ZooCountLeaderTwice plants a CheckQuorum off-by-one in n: the leader
// counts itself twice when it checks for a quorum (the majority
// miscount of apache/kafka#16211), so a leader cut off with one follower
// of five keeps leading. It is a test hook for internal/bugzoo only: no
// scenario parameter reaches it, and while it is off checkQuorum pays
// one boolean test per election timeout.
func (n *Node) ZooCountLeaderTwice() { n.cfg.zooLeaderTwice = true }

// ZooPreVoteIgnoresLease plants a PreVote bug in n: it grants a pre-vote
// whatever the leader lease says (go.etcd.io/raft raft.go Step grants a
// pre-vote only outside inLease, and Ongaro's thesis §9.6 makes a server
// that heard from a leader within the minimum election timeout refuse
// one), so a node rejoining after a partition wins its pre-vote and its
// real election deposes a leader the majority still hears. A test hook for
// internal/bugzoo only: no scenario parameter reaches it, and while it is
// off a pre-vote pays one boolean test.
func (n *Node) ZooPreVoteIgnoresLease() { n.cfg.zooPreVoteNoLease = true }
