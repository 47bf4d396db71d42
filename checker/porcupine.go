package checker

import (
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/electsim/electsim/sim"
)

// Linearization is one porcupine check: the history, the model, the
// verdict, and what is needed to draw porcupine's visualization.
type Linearization struct {
	// Check is the check it backs (CheckLinearizability or
	// CheckLeaderLinearizability).
	Check string
	// Model names the sequential specification: "lock" or "fenced-store".
	Model string
	// Result is porcupine's verdict: "Ok", "Illegal" or "Unknown" (timed out).
	Result string
	// Operations and Partitions size the history.
	Operations int
	Partitions int
	// Window, if not empty, says which part of a long history the
	// visualization draws (at most visualizeMax operations around the first
	// violation); the verdict is always the whole history's.
	Window string
	// Timeout is the bound the check ran under (wall time).
	Timeout time.Duration

	model porcupine.Model
	info  porcupine.LinearizationInfo
	ran   bool
}

// Visualize writes porcupine's HTML visualization of the history, its
// (partial) linearizations and the run's faults as annotations. The verdict
// is deterministic; the order in which equally long partial linearizations
// are listed may vary between runs.
func (l Linearization) Visualize(w io.Writer) error {
	if !l.ran {
		return fmt.Errorf("checker: %s was not run", l.Check)
	}
	return porcupine.Visualize(l.model, l.info, w)
}

// verdict maps porcupine's result to a status: a timeout is unknown, never ok.
func verdict(r porcupine.CheckResult) Status {
	switch r {
	case porcupine.Ok:
		return StatusOK
	case porcupine.Illegal:
		return StatusViolated
	default:
		return StatusUnknown
	}
}

// unplaced is the first operation of an illegal partition that porcupine
// could not place, and the model state before it (the end of the longest
// linearizable prefix).
type unplaced struct {
	partition int
	op        porcupine.Operation
	state     interface{}
	prefix    int // length of the longest linearizable prefix
	size      int // operations in the partition
}

// illegalParts finds, for each partition that has no complete
// linearization, the earliest operation missing from its longest partial
// linearization. Ties between equally long partial linearizations are broken
// by their ID sequence, so the answer is deterministic.
func illegalParts(m porcupine.Model, parts [][]porcupine.Operation, info porcupine.LinearizationInfo) []unplaced {
	var out []unplaced
	partials := info.PartialLinearizations()
	for p, ops := range parts {
		if p >= len(partials) {
			break
		}
		var best []int
		for _, seq := range partials[p] {
			if len(seq) > len(best) || (len(seq) == len(best) && lessSeq(seq, best)) {
				best = seq
			}
		}
		if len(best) >= len(ops) {
			continue
		}
		in := make([]bool, len(ops))
		state := m.Init()
		for _, id := range best {
			in[id] = true
			_, state = m.Step(state, ops[id].Input, ops[id].Output)
		}
		first := -1
		for id := range ops {
			if in[id] {
				continue
			}
			if first < 0 || ops[id].Call < ops[first].Call || (ops[id].Call == ops[first].Call && ops[id].Return < ops[first].Return) {
				first = id
			}
		}
		out = append(out, unplaced{partition: p, op: ops[first], state: state, prefix: len(best), size: len(ops)})
	}
	return out
}

func lessSeq(a, b []int) bool {
	for i := range a {
		if i >= len(b) || a[i] != b[i] {
			return i < len(b) && a[i] < b[i]
		}
	}
	return false
}

// MaxAnnotations bounds the annotations porcupine's visualization of the
// featured run draws (faults, pauses, crashes and tenures over the time its
// history spans): a run with a fault every millisecond would otherwise
// build one per fault, tens of MB an hour. Past it one last annotation says
// "N more faults not annotated" (docs/output.md, "Limits").
const MaxAnnotations = 2000

// annotations renders the run's faults (and, with tenures, who led) for
// porcupine's visualization. Nodes that have operations in the history get
// their annotations on their own row; the others on a tagged row. Only
// what overlaps [from, to] is drawn, at most MaxAnnotations of it.
func (c *checker) annotations(clients []bool, withTenures bool, from, to int64) []porcupine.Annotation {
	var out []porcupine.Annotation
	more := 0
	// keep reports whether an annotation over [start, end] is drawn; the
	// caller builds it (and its Sprintf details) only then.
	keep := func(start, end int64) bool {
		if end < from || start > to {
			return false
		}
		if len(out) >= MaxAnnotations {
			more++
			return false
		}
		return true
	}
	row := func(node sim.NodeID, a porcupine.Annotation) porcupine.Annotation {
		if k := clientOf(node); node >= 0 && k < len(clients) && clients[k] {
			a.ClientId = k
		} else {
			a.Tag = c.in.name(node)
		}
		return a
	}
	for _, p := range c.tl.pauses {
		if keep(int64(p.from), int64(p.to)) {
			out = append(out, row(p.node, porcupine.Annotation{Start: int64(p.from), End: int64(p.to), Description: "paused",
				Details: fmt.Sprintf("%s paused at t=%v for %v", c.in.name(p.node), p.from, ms(p.to.Sub(p.from))), BackgroundColor: "#ffe0b2"}))
		}
	}
	for _, k := range c.tl.crashes {
		if keep(int64(k.from), int64(k.to)) {
			out = append(out, row(k.node, porcupine.Annotation{Start: int64(k.from), End: int64(k.to), Description: "crashed",
				Details: fmt.Sprintf("%s crashed at t=%v", c.in.name(k.node), k.from), BackgroundColor: "#ffcdd2"}))
		}
	}
	for i := range c.kept {
		r := &c.kept[i].r
		if r.Type != sim.RecFault && r.Type != sim.RecNote || !keep(int64(r.At), int64(r.At)) {
			continue
		}
		tag := "faults"
		switch {
		case isNetFault(r):
			tag = "network"
		case strings.HasPrefix(r.Name, "clock."):
			tag = "clocks"
		}
		out = append(out, porcupine.Annotation{Tag: tag, Start: int64(r.At), End: int64(r.At), Description: r.Name,
			Details: fmt.Sprintf("t=%v %s %s", r.At, r.Name, r.Detail), BackgroundColor: "#e1f5fe"})
	}
	if withTenures {
		for i := range c.tl.tenures {
			t := &c.tl.tenures[i]
			if !keep(int64(t.start), int64(t.end)) {
				continue
			}
			out = append(out, porcupine.Annotation{Tag: "leader", Start: int64(t.start), End: int64(t.end),
				Description:     fmt.Sprintf("%s (token %d)", c.in.name(t.node), t.token),
				Details:         fmt.Sprintf("%s acted as leader, epoch %d token %d, t=%v–%v", c.in.name(t.node), t.epoch, t.token, t.start, t.end),
				BackgroundColor: "#e8f5e9"})
		}
	}
	if more > 0 {
		at := max(from, 0)
		if len(out) > 0 {
			at = out[len(out)-1].Start
		}
		out = append(out, porcupine.Annotation{Tag: "faults", Start: at, End: at,
			Description:     fmt.Sprintf("%d more faults not annotated", more),
			Details:         fmt.Sprintf("the visualization annotates at most %d faults, pauses, crashes and tenures (checker.MaxAnnotations)", MaxAnnotations),
			BackgroundColor: "#eeeeee"})
	}
	return out
}

// annotate adds the run's faults (and tenures) over the time ops span to
// the visualization.
func (c *checker) annotate(l *Linearization, ops []porcupine.Operation, withTenures bool) {
	clients := make([]bool, len(c.tl.openT)+len(c.in.Names)+1) // indexed by clientOf
	from, to := int64(math.MaxInt64), int64(math.MinInt64)
	for _, op := range ops {
		if op.ClientId >= 0 && op.ClientId < len(clients) {
			clients[op.ClientId] = true
		}
		from, to = min(from, op.Call), max(to, op.Return)
	}
	if l.Window == "" {
		from, to = math.MinInt64, math.MaxInt64
	}
	l.info.AddAnnotations(c.annotations(clients, withTenures, from, to))
}

// runPorcupine checks ops against m within timeout and returns the
// Linearization (with annotations added) and the unplaced operations of the
// illegal partitions.
func (c *checker) runPorcupine(check, model string, m porcupine.Model, ops []porcupine.Operation, parts [][]porcupine.Operation, withTenures bool) (Linearization, []unplaced) {
	// Without a story nobody will draw the history: decide it without
	// porcupine's bookkeeping for the visualization, and pay for that only
	// when an illegal history needs its unplaced operation explained.
	var res porcupine.CheckResult
	var info porcupine.LinearizationInfo
	verbose := c.hasStory()
	if !verbose {
		res = decide(m, ops, c.in.PorcupineTimeout)
		verbose = res == porcupine.Illegal
	}
	if verbose {
		res, info = porcupine.CheckOperationsVerbose(m, ops, c.in.PorcupineTimeout)
	}
	l := Linearization{Check: check, Model: model, Result: string(res), Operations: len(ops), Partitions: len(parts),
		Timeout: c.in.PorcupineTimeout}
	if c.hasStory() {
		// Kept for Visualize only: without a story the report does not
		// hold porcupine's entries (a month's tenures are some 0.2 MB).
		l.model, l.info, l.ran = m, info, true
		c.annotate(&l, ops, withTenures)
	}
	var bad []unplaced
	if res == porcupine.Illegal {
		bad = illegalParts(m, parts, info)
	}
	return l, bad
}
