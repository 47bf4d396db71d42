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

// network is a dense n×n matrix of directed links, indexed from*n + to.
type network struct {
	n     int
	links []link
	def   LinkConfig
	start linkStart
}

func (nw *network) idx(from, to NodeID) int { return int(from)*nw.n + int(to) }

func (nw *network) apply(l *link, c LinkConfig) {
	l.latency = c.Latency
	l.dropThresh = ProbThreshold(c.Drop)
	l.dupThresh = ProbThreshold(c.Duplicate)
	l.fifo = c.FIFO
}

// grow resizes the matrix to n nodes, keeping existing links.
func (nw *network) grow(n int) {
	links := make([]link, n*n)
	for f := 0; f < n; f++ {
		for t := 0; t < n; t++ {
			l := &links[f*n+t]
			if f < nw.n && t < nw.n {
				*l = nw.links[f*nw.n+t]
				continue
			}
			nw.apply(l, nw.def)
			l.up = true
		}
	}
	nw.n = n
	nw.links = links
}
