package sim

// The configuration links had when the run started, so that a change back
// to it can say so (FactLinksReset): the end of a link fault, which a
// checker needs to tell how long the fault lasted. Nothing is kept until a
// link changes after the start, and then only for the links that changed
// (or, when every link changes at once from one configuration, that one
// configuration), so a run without link faults pays nothing.
type linkStart struct {
	perLink map[Link]LinkConfig // a link → its configuration at the start (keyed by its ends: the matrix may grow)
	uniform bool                // every link not in perLink started as all
	all     LinkConfig
}

// startConfig returns the configuration link from→to had when the run
// started, cur being its configuration now; false before the start (the
// change is configuration, not a fault).
func (nw *network) startConfig(from, to NodeID, cur LinkConfig, started bool) (LinkConfig, bool) {
	if !started {
		return LinkConfig{}, false
	}
	i := Link{From: from, To: to}
	if c, ok := nw.start.perLink[i]; ok {
		return c, true
	}
	if nw.start.uniform {
		return nw.start.all, true
	}
	if nw.start.perLink == nil {
		nw.start.perLink = map[Link]LinkConfig{}
	}
	nw.start.perLink[i] = cur // unchanged since the start until now
	return cur, true
}

// noteStart records every link's start configuration before a change of
// every link at once (cfg reads a link's configuration now).
func (nw *network) noteStart(cfg func(from, to NodeID) LinkConfig) {
	if nw.start.uniform {
		return
	}
	first, same := cfg(0, 0), true
	nw.each(func(from, to NodeID, _ *link) {
		if _, ok := nw.start.perLink[Link{from, to}]; ok || cfg(from, to) != first {
			same = false
		}
	})
	if same {
		nw.start.uniform, nw.start.all = true, first
		return
	}
	nw.each(func(from, to NodeID, _ *link) {
		l := Link{from, to}
		if _, ok := nw.start.perLink[l]; !ok {
			if nw.start.perLink == nil {
				nw.start.perLink = map[Link]LinkConfig{}
			}
			nw.start.perLink[l] = cfg(from, to)
		}
	})
}

// backToStart reports whether c is every link's start configuration
// (noteStart must have run).
func (nw *network) backToStart(c LinkConfig) bool {
	if nw.start.uniform && nw.start.all != c {
		return false
	}
	for _, s := range nw.start.perLink { // any order: a conjunction
		if s != c {
			return false
		}
	}
	links := 0
	for _, row := range nw.rows {
		links += len(row)
	}
	return nw.start.uniform || len(nw.start.perLink) == links
}
