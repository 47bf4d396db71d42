package checker_test

// Random traces for the oracle property, generated directly (no algorithm):
// tenures with small epochs and tokens on two to four nodes that lead
// without waiting for each other (so three tenures often overlap), step
// down, crash, restart and pause; and resource writes whose jobs, slots, run
// IDs and tokens come from small ranges, so that one node rerunning a slot
// under a new run ID, two nodes using one run ID, and a token lower than
// the highest applied but higher than the last are all common.

import (
	"fmt"
	"strings"
	"time"

	"pgregory.net/rapid"

	"github.com/electsim/electsim/contract"
	"github.com/electsim/electsim/cron"
	"github.com/electsim/electsim/sim"
)

// oCase is one generated run.
type oCase struct {
	n        int // candidates 0..n-1; node n is the resource
	recs     []sim.Record
	log      []cron.LogEntry
	sent     []sim.Time // per log entry: when its write was sent
	policy   cron.Policy
	resource bool
	// contract is what the run's algorithm promises: the checker judges
	// each finding of a covered check against it (oracle_contract_test.go).
	contract contract.Contract
}

// oSlot0 is the first slot's wall time; slots are an hour apart.
var oSlot0 = time.Date(2026, 1, 1, 2, 0, 0, 0, time.UTC).UnixNano()

func ms(v int64) sim.Time { return sim.Time(v * int64(time.Millisecond)) }

// genCase draws one run.
func genCase(t *rapid.T) oCase {
	c := oCase{n: rapid.IntRange(2, 4).Draw(t, "nodes")}
	c.resource = rapid.IntRange(0, 9).Draw(t, "resource") > 0
	c.contract = genContract(t)
	c.policy.Fencing = rapid.Bool().Draw(t, "fencing")
	c.policy.FencingScope = rapid.SampledFrom([]string{"", "job", "global"}).Draw(t, "scope")
	if c.resource {
		c.log = []cron.LogEntry{}
	}
	up := make([]bool, c.n)
	leading := make([]bool, c.n)
	paused := make([]bool, c.n)
	for i := range up {
		up[i] = true
	}
	runToken := map[oRun]int64{} // a run writes with one token
	linkCut := map[sim.Link]bool{}
	now := int64(0)
	add := func(r sim.Record) {
		r.At = ms(now)
		if r.Type != sim.RecDeliver {
			r.Peer = sim.None
		}
		c.recs = append(c.recs, r)
	}
	steps := rapid.IntRange(0, 46).Draw(t, "steps") // 40 before the two fault-record actions came
	for s := 0; s < steps; s++ {
		now += rapid.SampledFrom([]int64{2, 0, 0, 1, 3, 5}).Draw(t, "gap") // shrinks to 2 ms: ties stay few
		node := sim.NodeID(rapid.IntRange(0, c.n-1).Draw(t, "node"))
		switch rapid.IntRange(0, 15).Draw(t, "action") {
		case 13: // a clock or disk fault, or its end, on a candidate or on the resource
			target := sim.NodeID(rapid.IntRange(0, c.n).Draw(t, "clockNode"))
			r := sim.Record{Type: sim.RecFault, Node: target, Fact: rapid.SampledFrom([]sim.Fact{sim.FactClockRate, sim.FactClockStep, sim.FactClockExact, sim.FactClockUnstepped, sim.FactDiskLatency, sim.FactDiskRestored}).Draw(t, "clockFact")}
			if r.Fact == sim.FactClockRate { // the rate it now runs at: stopped, slow or fast
				// Picked from the step's time and node, not drawn: an
				// extra draw would shift every later one and change the
				// mix of cases the shape test holds the generator to.
				rates := []int64{0, sim.RateOne / 2, sim.RateOne * 9 / 10, sim.RateOne * 3 / 2, 2 * sim.RateOne}
				r.RatePPB = rates[(now+int64(target))%int64(len(rates))]
			}
			add(r)
		case 14: // a network fault or its end: on one link between two nodes (the resource's included), or on every link
			r := sim.Record{Type: sim.RecFault, Node: sim.None, Fact: rapid.SampledFrom([]sim.Fact{sim.FactLinksCut, sim.FactLinksRestored, sim.FactLinkChanged, sim.FactLinkLossy, sim.FactLinkLossyChanged, sim.FactLinksReset}).Draw(t, "netFact")}
			from, to := sim.NodeID(rapid.IntRange(0, c.n).Draw(t, "linkFrom")), sim.NodeID(rapid.IntRange(0, c.n).Draw(t, "linkTo"))
			every := r.Fact != sim.FactLinksCut && r.Fact != sim.FactLinksRestored && rapid.Bool().Draw(t, "everyLink")
			switch {
			case every:
			case r.Fact == sim.FactLinksCut && !linkCut[sim.Link{From: from, To: to}] && from != to,
				r.Fact == sim.FactLinksRestored && linkCut[sim.Link{From: from, To: to}],
				r.Fact != sim.FactLinksCut && r.Fact != sim.FactLinksRestored && from != to:
				r.Links = []sim.Link{{From: from, To: to}} // the engine lists exactly the links whose state changed
				if r.Fact == sim.FactLinksCut || r.Fact == sim.FactLinksRestored {
					linkCut[r.Links[0]] = r.Fact == sim.FactLinksCut
				}
			default:
				continue
			}
			add(r)
		case 12: // a tenure of no time: leads, then learns of a newer term at once
			if !up[node] {
				continue
			}
			epoch := int64(rapid.IntRange(1, 5).Draw(t, "epoch"))
			add(sim.Record{Type: sim.RecLead, Node: node, Epoch: epoch, Token: epoch})
			add(sim.Record{Type: sim.RecStepDown, Node: node, Detail: "x"})
			leading[node] = false
		case 0, 1, 2: // acts as leader (again, if already leading: a new tenure)
			if !up[node] {
				continue
			}
			epoch := int64(rapid.IntRange(1, 5).Draw(t, "epoch"))
			token := epoch
			if rapid.Bool().Draw(t, "tokenIsEpoch") {
				token = int64(rapid.IntRange(1, 6).Draw(t, "token"))
			}
			add(sim.Record{Type: sim.RecLead, Node: node, Epoch: epoch, Token: token})
			leading[node] = true
		case 3:
			if leading[node] {
				add(sim.Record{Type: sim.RecStepDown, Node: node, Detail: "x"})
				leading[node] = false
			}
		case 4: // the engine records a leader's crash as a step-down, then the crash
			if !up[node] {
				continue
			}
			if leading[node] {
				add(sim.Record{Type: sim.RecStepDown, Node: node, Detail: "crash", Fact: sim.FactCrashed})
			}
			add(sim.Record{Type: sim.RecCrash, Node: node})
			up[node], leading[node], paused[node] = false, false, false
		case 5:
			if !up[node] {
				r := sim.Record{Type: sim.RecStart, Node: node, A: 1}
				if rapid.Bool().Draw(t, "diskLost") {
					r.Fact = sim.FactDiskLost
				}
				add(r)
				up[node] = true
			}
		case 6:
			if up[node] && paused[node] {
				add(sim.Record{Type: sim.RecResume, Node: node})
			} else if up[node] {
				add(sim.Record{Type: sim.RecPause, Node: node})
			}
			paused[node] = !paused[node]
		case 15: // a message between a candidate and the resource is lost to the network's loss
			r := sim.Record{Type: sim.RecDrop, Reason: sim.DropLoss, Node: sim.NodeID(c.n), Kind: cron.KindWrite}
			if rapid.Bool().Draw(t, "dropToNode") {
				r.Node = node
			}
			add(r)
			c.recs[len(c.recs)-1].Peer = sim.NodeID(c.n) + node - r.Node // the other end
		default: // a write reaches the resource
			if !c.resource {
				continue
			}
			job := rapid.IntRange(0, 1).Draw(t, "job")
			r := oRun{node, int64(rapid.IntRange(1, 3).Draw(t, "run"))}
			tok, ok := runToken[r]
			if !ok {
				tok = int64(rapid.IntRange(1, 6).Draw(t, "writeToken"))
				runToken[r] = tok
			}
			e := cron.LogEntry{At: ms(now), Job: []string{"a", "b"}[job], JobIndex: job,
				Slot: oSlot0 + int64(rapid.IntRange(0, 2).Draw(t, "slot"))*int64(time.Hour), Step: rapid.IntRange(0, 1).Draw(t, "step"),
				Token: tok, Node: node, Run: r.run, Accepted: rapid.IntRange(0, 4).Draw(t, "accepted") > 0}
			e.FireTime = e.Slot
			e.Reason = cron.ReasonAccepted
			if !e.Accepted {
				e.Reason = cron.ReasonStale
			}
			sent := ms(max(0, now-int64(rapid.IntRange(0, 4).Draw(t, "inFlight")))) // shrinks to instantaneous
			add(sim.Record{Type: sim.RecDeliver, Node: sim.NodeID(c.n), Peer: node, Kind: cron.KindWrite, Epoch: tok, SentAt: sent})
			c.log = append(c.log, e)
			c.sent = append(c.sent, sent)
		}
	}
	now += rapid.SampledFrom([]int64{0, 1, 5}).Draw(t, "tail")
	add(sim.Record{Type: sim.RecEnd, Node: sim.None, Detail: "horizon"})
	return c
}

// String lists the case for a failure message.
func (c oCase) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d nodes, resource %v, policy %+v\n", c.n, c.resource, c.policy)
	for _, r := range c.recs {
		switch r.Type {
		case sim.RecDeliver:
			continue
		case sim.RecLead:
			fmt.Fprintf(&b, "  t=%v n%d lead epoch %d token %d\n", r.At, r.Node, r.Epoch, r.Token)
		default:
			fmt.Fprintf(&b, "  t=%v n%d %v %s\n", r.At, r.Node, r.Type, r.Detail)
		}
	}
	for i, e := range c.log {
		fmt.Fprintf(&b, "  write %d: t=%v (sent %v) n%d run %d job %d slot %d token %d accepted %v\n",
			i, e.At, c.sent[i], e.Node, e.Run, e.JobIndex, (e.Slot-oSlot0)/int64(time.Hour), e.Token, e.Accepted)
	}
	return b.String()
}
