package checker_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"pgregory.net/rapid"

	"github.com/electsim/electsim/contract"
	"github.com/electsim/electsim/proptest"
)

// oShapes counts, over the generated cases, the shapes the planted checker
// bugs hide in, so that a generator change that made them rare fails.
type oShapes struct {
	cases, threeOverlap, rerun, staleAboveLast, electionSafety, doubled, illegal int
	// Contract verdicts: cases with a breach, with an excused finding,
	// with a split-brain overlap within its bound.
	breach, excused, withinBound int
}

// TestOracleCasesAreInteresting holds that the interesting cases are common
// among the property's cases: three tenures of different nodes acting at
// one instant, one node applying a slot from two runs (a rerun after a
// restart), and a stale token higher than the last applied (lower than the
// highest); and that every check both holds and fails often.
func TestOracleCasesAreInteresting(t *testing.T) {
	var s oShapes
	proptest.Check(t, oracleCases, func(t *rapid.T) {
		s.add(genCase(t))
	})
	t.Logf("%+v", s)
	for name, n := range map[string]int{"three tenures at once": s.threeOverlap, "a node rerunning a slot": s.rerun,
		"a stale token above the last": s.staleAboveLast, "two leaders of one epoch": s.electionSafety,
		"a doubled slot": s.doubled, "an illegal resource history": s.illegal,
		"a contract breach": s.breach, "an excused finding": s.excused, "an overlap within its bound": s.withinBound} {
		assert.GreaterOrEqual(t, 20*n, s.cases, "%s in fewer than a twentieth of the cases", name)
		assert.GreaterOrEqual(t, 20*(s.cases-n), s.cases, "%s in more than nineteen twentieths of the cases", name)
	}
}

func (s *oShapes) add(c oCase) {
	s.cases++
	var seen [4]bool
	for check, fs := range oracleFindings(c) {
		for _, f := range fs {
			seen[oracleVerdict(c, check, f)] = true
		}
	}
	for v, n := range map[contract.Verdict]*int{contract.Breach: &s.breach, contract.Excused: &s.excused, contract.WithinBound: &s.withinBound} {
		if seen[v] {
			*n++
		}
	}
	ts := oracleTenures(c.recs)
	three := false
	for i := range ts {
		for j := i + 1; j < len(ts); j++ {
			for k := j + 1; k < len(ts); k++ {
				a, b, d := ts[i], ts[j], ts[k]
				distinct := a.node != b.node && b.node != d.node && a.node != d.node
				three = three || (distinct && d.start < a.end && d.start < b.end && d.start < d.end) // started last: j, k after i
			}
		}
	}
	if three {
		s.threeOverlap++
	}
	if len(oracleElectionSafety(ts)) > 0 {
		s.electionSafety++
	}
	if !c.resource {
		return
	}
	dd := oracleDoubled(c.log)
	if len(dd) > 0 {
		s.doubled++
	}
	rerun := false
	for _, d := range dd {
		for x := range d.runs {
			for y := range d.runs[:x] {
				rerun = rerun || d.runs[x].node == d.runs[y].node
			}
		}
	}
	if rerun {
		s.rerun++
	}
	above := false
	for _, st := range oracleStale(c.log, c.policy) {
		e := c.log[st.idx]
		for j := st.idx - 1; j >= 0; j-- { // the last applied write of the scope before it
			if f := c.log[j]; f.Accepted && sameScope(c.policy, e, f) {
				above = above || f.Token < e.Token
				break
			}
		}
	}
	if above {
		s.staleAboveLast++
	}
	if oracleResourceIllegal(c.log, c.sent, c.policy) > 0 {
		s.illegal++
	}
}
