package checker

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/electsim/electsim/cron"
	"github.com/electsim/electsim/faults"
	"github.com/electsim/electsim/sim"
)

// maxStoryItems bounds a narrative; the items nearest the violation are kept.
const maxStoryItems = 14

// item is one step of a narrative.
type item struct {
	at   sim.Time
	seq  int64      // record index (or log-derived order) to break ties
	node sim.NodeID // whose local clock to show; sim.None for none
	wall int64      // that node's wall clock reading (Unix ns), 0 if unknown
	text string
}

// story joins items into a narrative in time order, ending in the verdict:
// "t=12.300s n2 paused for 6.000s (local 02:00:12.300) · … → double execution".
func (c *checker) story(items []item, verdict string) string {
	sort.SliceStable(items, func(i, j int) bool {
		if items[i].at != items[j].at {
			return items[i].at < items[j].at
		}
		return items[i].seq < items[j].seq
	})
	// Drop exact repeats (the same event gathered twice).
	var uniq []item
	for _, it := range items {
		if len(uniq) > 0 && uniq[len(uniq)-1].at == it.at && uniq[len(uniq)-1].text == it.text {
			continue
		}
		uniq = append(uniq, it)
	}
	var parts []string
	if len(uniq) > maxStoryItems {
		skipped := len(uniq) - (maxStoryItems - 1)
		parts = append(parts, renderItem(uniq[0]), fmt.Sprintf("… %d more events …", skipped))
		uniq = uniq[len(uniq)-(maxStoryItems-2):]
	}
	for _, it := range uniq {
		parts = append(parts, renderItem(it))
	}
	s := strings.Join(parts, " · ")
	switch {
	case s == "":
		return verdict
	case verdict != "":
		s += " → " + verdict
	}
	return s
}

func renderItem(it item) string {
	s := "t=" + it.at.String() + " " + it.text
	if it.node >= 0 && it.wall != 0 {
		s += " (local " + time.Unix(0, it.wall).UTC().Format("15:04:05.000") + ")"
	}
	return s
}

// ms rounds a duration to the millisecond, for text.
func ms(d time.Duration) time.Duration { return d.Round(time.Millisecond) }

// involved reports whether id is in nodes.
func involved(nodes []sim.NodeID, id sim.NodeID) bool {
	for _, n := range nodes {
		if n == id {
			return true
		}
	}
	return false
}

// context gathers the trace events in [from, to] that explain what happened
// to nodes: faults (global ones and theirs), pauses, crashes, restarts, their
// leadership changes, the lease store's hand-overs, and the starts of cron
// runs of the given slots.
func (c *checker) context(from, to sim.Time, nodes []sim.NodeID, slots []slotID) []item {
	recs := c.kept
	i := sort.Search(len(recs), func(k int) bool { return recs[k].r.At >= from })
	var out []item
	for ; i < len(recs) && recs[i].r.At <= to; i++ {
		r := &recs[i].r
		mine := involved(nodes, r.Node)
		it := item{at: r.At, seq: recs[i].seq, node: r.Node, wall: r.Wall}
		switch r.Type {
		case sim.RecFault, sim.RecNote:
			if r.Node != sim.None && !mine || noOp(r) || c.toldByFaultNote(i, nodes) {
				continue
			}
			it.text = faultText(r)
		case sim.RecPause:
			if !mine || c.toldByFaultNote(i, nodes) {
				continue
			}
			if p, ok := c.tl.pauseAt(r.Node, r.At); ok && !p.open {
				it.text = fmt.Sprintf("%s paused for %v", c.in.name(r.Node), ms(p.to.Sub(p.from)))
			} else {
				it.text = c.in.name(r.Node) + " paused (until the end)"
			}
		case sim.RecResume:
			if !mine || c.toldByFaultNote(i, nodes) {
				continue
			}
			it.text = c.in.name(r.Node) + " resumed"
		case sim.RecCrash:
			if !mine || c.toldByFaultNote(i, nodes) {
				continue
			}
			it.text = c.in.name(r.Node) + " crashed"
		case sim.RecStart:
			if !mine || !r.Restarted() || c.toldByFaultNote(i, nodes) {
				continue
			}
			it.text = c.in.name(r.Node) + " restarted"
		case sim.RecLead:
			if !mine {
				continue
			}
			it.text = fmt.Sprintf("%s acts as leader, epoch %d, token %d", c.in.name(r.Node), r.Epoch, r.Token)
		case sim.RecStepDown:
			if !mine || r.Fact == sim.FactCrashed {
				continue
			}
			it.text = fmt.Sprintf("%s stopped leading: %s", c.in.name(r.Node), r.Detail)
		case sim.RecEffect:
			it.text = c.effectText(r, nodes, slots)
			if it.text == "" {
				continue
			}
			if involved(c.in.LeaseStore, r.Node) {
				it.node = sim.None // the store's clock is not the story's
			}
		default:
			continue
		}
		out = append(out, it)
	}
	return out
}

// noOp reports whether r is one of the fault layer's notes of what did
// not happen: a fault skipped, or the settle phase's count of the faults
// it reverts (each revert has its own note). Neither is ever a cause.
func noOp(r *sim.Record) bool {
	return r.Type == sim.RecNote && (r.Name == faults.NoteSkip || r.Name == faults.NoteSettle)
}

// toldByFaultNote reports whether kept record i is the engine's record of
// what a fault layer's note of the same instant tells already: a network
// change (net.*: "connect n1 -> n2, n2 -> n1, …" beside "faults[0]: heal
// partition: 10 of 10 links restored"), or the pause, resume, crash or
// restart of the note's node ("resource crashed" beside "faults[2]: crash
// resource for 3.600s"). The story tells each once, by the note, which
// names the fault and its duration; a note the story leaves out (of a
// node not among nodes) tells nothing.
func (c *checker) toldByFaultNote(i int, nodes []sim.NodeID) bool {
	r := &c.kept[i].r
	net := r.Type == sim.RecFault && strings.HasPrefix(r.Name, "net.")
	switch {
	case net, r.Type == sim.RecPause, r.Type == sim.RecResume, r.Type == sim.RecCrash, r.Type == sim.RecStart:
	default:
		return false
	}
	for _, step := range []int{-1, 1} {
		for k := i + step; k >= 0 && k < len(c.kept) && c.kept[k].r.At == r.At; k += step {
			x := &c.kept[k].r
			if x.Type == sim.RecNote && strings.HasPrefix(x.Name, faults.NotePrefix) && !noOp(x) &&
				(x.Node == r.Node || net && (x.Node == sim.None || involved(nodes, x.Node))) {
				return true
			}
		}
	}
	return false
}

// everyNode lists every node of the run, candidates and services alike
// (a slot's story involves the resource, the stores, a queue and its
// workers as much as the schedulers).
func (c *checker) everyNode() []sim.NodeID {
	out := slices.Clone(c.in.Candidates)
	for id := range c.in.Names {
		if !slices.Contains(out, sim.NodeID(id)) {
			out = append(out, sim.NodeID(id))
		}
	}
	return out
}

// effectText renders the effects worth telling: the lease store's hand-overs
// and availability, and the starts of cron runs of the given slots by the
// given nodes.
func (c *checker) effectText(r *sim.Record, nodes []sim.NodeID, slots []slotID) string {
	if involved(c.in.LeaseStore, r.Node) {
		l := r.Lease()
		holder := c.in.name(l.Holder)
		switch r.Fact {
		case sim.FactLeaseAcquired:
			return fmt.Sprintf("%s acquired the lease, token %d", holder, l.Token)
		case sim.FactLeaseExpired:
			return fmt.Sprintf("lease of %s (token %d) expired by the store's clock", holder, l.Token)
		case sim.FactLeaseReleased:
			return fmt.Sprintf("%s released the lease (token %d)", holder, l.Token)
		case sim.FactLeaseReverted:
			return "the store lost a write in a failover (lease reverted)"
		case sim.FactServiceDown:
			return "the lease store became unavailable"
		case sim.FactServiceUp:
			return "the lease store became available"
		}
		return ""
	}
	run := r.Run()
	if r.Fact == sim.FactRunSkipped {
		for _, s := range slots {
			if s == (slotID{run.Job, run.Slot}) {
				return fmt.Sprintf("%s did not run %s", c.in.name(r.Node), r.Detail)
			}
		}
	}
	if t := c.execText(r, nodes, slots); t != "" {
		return t
	}
	if r.Fact == sim.FactRunStarted && involved(nodes, r.Node) {
		for _, s := range slots {
			if s == (slotID{run.Job, run.Slot}) {
				return fmt.Sprintf("%s started a run of %s with token %d", c.in.name(r.Node), c.slotName(s.job, s.slot), run.Token)
			}
		}
	}
	return ""
}

// faultText renders a fault record for people: a faults-layer note by its
// detail, an engine fault by its name and detail. It chooses by the
// record's name only; the detail is shown, never inspected.
func faultText(r *sim.Record) string {
	switch {
	case strings.HasPrefix(r.Name, "net."):
		return strings.TrimPrefix(r.Name, "net.") + " " + r.Detail
	case strings.HasPrefix(r.Name, "clock.") || strings.HasPrefix(r.Name, "disk."):
		return r.Detail
	default:
		return strings.TrimSpace(r.Detail + " [" + r.Name + "]")
	}
}

func (c *checker) slotName(job int, slot int64) string {
	if job >= 0 && job < len(c.in.Jobs) {
		return cron.SlotName(c.in.Jobs[job].Name, slot)
	}
	for i := range c.in.Resource {
		if c.in.Resource[i].JobIndex == job {
			return cron.SlotName(c.in.Resource[i].Job, slot)
		}
	}
	return cron.SlotName(fmt.Sprintf("job%d", job), slot)
}

// writeItem tells one write: who sent it when, with which token, and what
// the resource did with it.
func (c *checker) writeItem(i int) item {
	e := &c.in.Resource[i]
	at := e.At
	if c.sentAt[i] >= 0 {
		at = c.sentAt[i]
	}
	verdict := "accepted it"
	if !e.Accepted {
		verdict = "rejected it: " + e.Why()
	}
	return item{at: at, seq: writeSeqBase + int64(i), node: sim.None,
		text: fmt.Sprintf("%s wrote %s step %d with token %d; resource %s at t=%v (policy: %s)",
			c.in.name(e.Node), cron.SlotName(e.Job, e.Slot), e.Step, e.Token, verdict, e.At, c.in.Policy)}
}

// writeStory explains the writes idx: the writes themselves, the leadership
// changes of their tenures, and what happened to their nodes from the start
// of the earliest run involved. slot filters the cron run starts told (job
// -1: the writes' own slots).
func (c *checker) writeStory(idx []int, job int, slot int64) []item {
	var nodes []sim.NodeID
	var slots []slotID
	from, to := sim.Never, sim.Time(0)
	var items []item
	for _, i := range idx {
		e := &c.in.Resource[i]
		if !involved(nodes, e.Node) {
			nodes = append(nodes, e.Node)
		}
		s := slotID{e.JobIndex, e.Slot}
		if job >= 0 {
			s = slotID{job, slot}
		}
		dup := false
		for _, x := range slots {
			dup = dup || x == s
		}
		if !dup {
			slots = append(slots, s)
		}
		items = append(items, c.writeItem(i))
		if e.At > to {
			to = e.At
		}
		start := c.runStart(e)
		if start < from {
			from = start
		}
		if k := c.tl.tenureOf(e.Node, e.Token, e.At); k >= 0 {
			t := &c.tl.tenures[k]
			items = append(items, item{at: t.start, seq: t.startSeq, node: t.node, wall: t.startWall,
				text: fmt.Sprintf("%s acts as leader, epoch %d, token %d", c.in.name(t.node), t.epoch, t.token)})
		}
	}
	if from == sim.Never {
		from = to
	}
	// A pause or crash of a writer that was under way when the runs began
	// is part of the story.
	for _, spans := range [][]span{c.tl.pauses, c.tl.crashes} {
		for _, s := range spans {
			if involved(nodes, s.node) && s.from < from && s.to >= from {
				from = s.from
			}
		}
	}
	return append(items, c.context(from, to, nodes, slots)...)
}

// runKey names one run start: the node, its token, the slot and the job.
type runKey struct {
	node  sim.NodeID
	token int64
	slot  int64
	job   int
}

// runStart is when the run that made write e started (its FactRunStarted
// effect, the latest at or before the write), or the write's time if the
// story does not say. The starts are indexed in one pass over the story, so
// explaining many writes stays linear in the story's length.
func (c *checker) runStart(e *cron.LogEntry) sim.Time {
	if c.runStarts == nil {
		c.runStarts = map[runKey][]sim.Time{} // lookups only
		for i := range c.kept {
			r := &c.kept[i].r
			if r.Type == sim.RecEffect && r.Fact == sim.FactRunStarted {
				run := r.Run()
				k := runKey{r.Node, run.Token, run.Slot, run.Job}
				c.runStarts[k] = append(c.runStarts[k], r.At)
			}
		}
	}
	start := e.At
	for _, at := range c.runStarts[runKey{e.Node, e.Token, e.Slot, e.JobIndex}] {
		if at <= e.At {
			start = at // starts are in trace order: keep the latest before the write
		}
	}
	return start
}

// writeSeqBase orders a write's story item after every record of its instant.
const writeSeqBase = 1 << 50

// slotStoryWindow is how far either side of a slot's due time its story
// (a missed or lost slot's) looks.
const slotStoryWindow = sim.Time(30 * time.Second)

// slotStoryEnd is where a slot's story ends: at its deadline (end) when
// it has one (a contract's missed_slots bound: what happens after it did
// not make the slot late), else slotStoryWindow after it fell due.
func slotStoryEnd(due, end sim.Time) sim.Time {
	if end > due {
		return min(end, due+slotStoryWindow)
	}
	return due + slotStoryWindow
}
