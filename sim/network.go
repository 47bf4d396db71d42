package sim

// link is the configuration and state of one directed link.
type link struct {
	latency     Dist
	dropThresh  uint64 // ProbThreshold(drop)
	dupThresh   uint64 // ProbThreshold(duplicate)
	fifo        bool
	lastDeliver Time // latest scheduled delivery, for FIFO
	up          bool // reachability: false = cut
}

// LinkConfig is the configuration of a directed link (or of all links).
type LinkConfig struct {
	// Latency is the one-way delay distribution.
	Latency Dist
	// Drop is the probability a message is lost, in [0, 1].
	Drop float64
	// Duplicate is the probability a message is delivered twice (the copy has
	// its own latency), in [0, 1].
	Duplicate float64
	// FIFO makes the link deliver in send order (a later message never
	// overtakes an earlier one), like a TCP connection.
	FIFO bool
}

// network is a dense n×n matrix of directed links, one row per sender:
// rows[from][to]. Rows, not one n×n slice: adding a node appends to each
// row (amortized), where regrowing one slice copied the whole matrix per
// node, O(n³) to build a run of n nodes (a thousand queue workers: over
// 10 s of wall time, issue 39).
type network struct {
	n     int
	rows  [][]link
	def   LinkConfig
	start linkStart
}

// at is the link from→to.
func (nw *network) at(from, to NodeID) *link { return &nw.rows[from][to] }

// each calls f with every link, sender-major (from, then to), the order
// a trace's link lists follow.
func (nw *network) each(f func(from, to NodeID, l *link)) {
	for from, row := range nw.rows {
		for to := range row {
			f(NodeID(from), NodeID(to), &row[to])
		}
	}
}

func (nw *network) apply(l *link, c LinkConfig) {
	l.latency = c.Latency
	l.dropThresh = ProbThreshold(c.Drop)
	l.dupThresh = ProbThreshold(c.Duplicate)
	l.fifo = c.FIFO
}

// grow resizes the matrix to n nodes, keeping existing links; the new
// ones have the default configuration and are up.
func (nw *network) grow(n int) {
	fresh := func() link {
		var l link
		nw.apply(&l, nw.def)
		l.up = true
		return l
	}
	for f := range nw.rows {
		for len(nw.rows[f]) < n {
			nw.rows[f] = append(nw.rows[f], fresh())
		}
	}
	for len(nw.rows) < n {
		row := make([]link, n)
		for t := range row {
			row[t] = fresh()
		}
		nw.rows = append(nw.rows, row)
	}
	nw.n = n
}
