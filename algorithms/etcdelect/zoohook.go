package etcdelect

// ZooLeadOnPredecessorDelete plants an election bug in n: when the key it
// waits behind is deleted, the candidate leads at once instead of looking
// again for any older key (etcd's waitDeletes loops until no key with a
// lower create revision is left; the one-predecessor wait is the
// ZooKeeper recipe's, which is safe there only because each candidate
// leads when it is first in line, not when its predecessor goes: see
// ZooKeeper's recipes page, "Leader Election", and Curator's
// apache/curator#243 / CURATOR-444 discussion of leaders observed after
// a predecessor's deletion). It is a test hook for internal/bugzoo only:
// no scenario parameter reaches it, and while it is off a fired watch pays
// one boolean test.
func (n *Node) ZooLeadOnPredecessorDelete() { n.cfg.zooLeadOnDelete = true }
