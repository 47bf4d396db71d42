package contract

import "time"

// LatencyTerms say how a guarantee depends on the one-way latency of
// messages, which an algorithm's parameters do not fix: a leader learns it
// was deposed, or that its quorum went silent, only as fast as messages
// travel. The algorithm states the terms; the scenario, which knows its
// network, resolves them (Contract.Resolve).
type LatencyTerms struct {
	// Max: MaxOverlap grows by this many longest one-way latencies (a
	// deposed leader hears its successor's first message that much later).
	Max int
	// Spread: MaxOverlap grows by this many spreads, longest minus
	// shortest one-way latency (a reply still in flight when a faster
	// message already elected a successor).
	Spread int
	// Assume, if set, is the longest one-way latency the guarantee
	// assumes (a synchronous model's bound, such as the bully algorithm's
	// "answered within T"): on a network that can be slower the guarantee
	// does not hold at all. Zero: no assumption.
	Assume time.Duration
}

// weaker is the terms of a merged guarantee: the larger latency terms and
// the stricter assumption, so the merged promise is no stronger than
// either.
func (l LatencyTerms) weaker(o LatencyTerms) LatencyTerms {
	out := LatencyTerms{Max: max(l.Max, o.Max), Spread: max(l.Spread, o.Spread), Assume: l.Assume}
	if o.Assume > 0 && (out.Assume == 0 || o.Assume < out.Assume) {
		out.Assume = o.Assume
	}
	return out
}

// needed reports whether the terms need a bounded network.
func (l LatencyTerms) needed() bool { return l.Max > 0 || l.Spread > 0 || l.Assume > 0 }

// Network is what a run's configuration says of its one-way message
// latencies, over every link and every link fault it can apply.
type Network struct {
	// Min is the shortest latency any message can have.
	Min time.Duration
	// Max is the longest, when Bounded.
	Max time.Duration
	// Bounded is false when some latency distribution has no upper bound
	// (an unclipped exponential or normal): no latency term can be
	// resolved then.
	Bounded bool
}

// Resolve returns c for a run on network n: each guarantee's MaxOverlap
// (its Deadline, when it has one) gains its latency terms (Max × n.Max + Spread × (n.Max − n.Min)), never
// below zero (a bound such as max(0, ℓmax − T/3) states MaxOverlap −T/3
// and Max 1), and a
// guarantee whose terms n cannot honour (an unbounded network, or a
// latency above what it assumes) is dropped: the contract then makes no
// promise on that check, and the scenario's expect judges it. The
// resolved guarantees carry no latency terms.
func (c Contract) Resolve(n Network) Contract {
	out := Contract{}
	for _, g := range c.Guarantees {
		l := g.Latency
		if l.needed() && !n.Bounded {
			continue
		}
		if l.Assume > 0 && n.Max > l.Assume {
			continue
		}
		terms := time.Duration(l.Max)*n.Max + time.Duration(l.Spread)*(n.Max-n.Min)
		if g.Deadline > 0 {
			g.Deadline += terms // a missed slot's deadline: latency delays the write, never the overlap
		} else {
			g.MaxOverlap = max(0, g.MaxOverlap+terms)
		}
		g.Latency = LatencyTerms{}
		out.Guarantees = append(out.Guarantees, g)
	}
	return out
}
