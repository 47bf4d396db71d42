package checker

// owners is an immutable map from a slot (job, slot) to the run its writes
// were applied from: a treap whose nodes are never changed once built, so
// adding an owner copies only the path to it (O(log n)) and every older
// state stays valid. Porcupine keeps one model state per step it explores;
// with a copied sorted slice each state cost O(slots) and a month of cron
// writes took hundreds of megabytes, with this it costs O(log slots).
type owners struct {
	root *ownerNode
	size int
	sum  uint64 // order-independent hash of the entries, for a fast Equal
}

type ownerNode struct {
	o           slotOwner
	prio        uint64
	left, right *ownerNode
}

func ownerLess(aj int, as int64, bj int, bs int64) bool {
	return aj < bj || (aj == bj && as < bs)
}

// keyHash mixes a slot key into a treap priority (deterministic: a run's
// check never depends on anything but its history).
func keyHash(job int, slot int64) uint64 {
	x := uint64(slot)*0x9e3779b97f4a7c15 ^ uint64(job)*0xc2b2ae3d27d4eb4f
	x ^= x >> 31
	x *= 0xbf58476d1ce4e5b9
	return x ^ x>>29
}

func ownerHash(o slotOwner) uint64 {
	return keyHash(o.job, o.slot) ^ uint64(o.node)*0x165667b19e3779f9 ^ uint64(o.run)*0x27d4eb2f165667c5
}

// find returns the owner of (job, slot), if any.
func (t owners) find(job int, slot int64) (slotOwner, bool) {
	n := t.root
	for n != nil {
		switch {
		case ownerLess(job, slot, n.o.job, n.o.slot):
			n = n.left
		case ownerLess(n.o.job, n.o.slot, job, slot):
			n = n.right
		default:
			return n.o, true
		}
	}
	return slotOwner{}, false
}

// with returns t plus o, whose slot must not be in t.
func (t owners) with(o slotOwner) owners {
	return owners{root: insertOwner(t.root, o, keyHash(o.job, o.slot)), size: t.size + 1, sum: t.sum + ownerHash(o)}
}

func insertOwner(n *ownerNode, o slotOwner, prio uint64) *ownerNode {
	if n == nil {
		return &ownerNode{o: o, prio: prio}
	}
	c := *n // path copy: n itself is shared by older states
	if ownerLess(o.job, o.slot, n.o.job, n.o.slot) {
		c.left = insertOwner(n.left, o, prio)
		if c.left.prio > c.prio { // rotate right
			l := *c.left
			c.left, l.right = l.right, &c
			return &l
		}
		return &c
	}
	c.right = insertOwner(n.right, o, prio)
	if c.right.prio > c.prio { // rotate left
		r := *c.right
		c.right, r.left = r.left, &c
		return &r
	}
	return &c
}

// each calls f on every owner in (job, slot) order until f returns false.
func (t owners) each(f func(slotOwner) bool) {
	var walk func(n *ownerNode) bool
	walk = func(n *ownerNode) bool {
		return n == nil || (walk(n.left) && f(n.o) && walk(n.right))
	}
	walk(t.root)
}

// equal reports whether t and u hold the same owners.
func (t owners) equal(u owners) bool {
	if t.root == u.root {
		return true
	}
	if t.size != u.size || t.sum != u.sum {
		return false
	}
	var a, b []slotOwner
	t.each(func(o slotOwner) bool { a = append(a, o); return true })
	u.each(func(o slotOwner) bool { b = append(b, o); return true })
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
