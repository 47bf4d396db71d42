package hunt

import (
	"fmt"
	"strings"

	"github.com/electsim/electsim/scenario"
)

// repro replays a finding with its fault history, shrinks it and fills the
// result's reproduction, replay line and explanation.
func (h *hunter) repro(out *outcome) {
	res := &h.res
	res.Replay = h.o.Program + " -scenario repro.yaml"
	if out.panic != "" && out.sc != nil {
		// The run did not finish: its schedule, as a scenario with the
		// run's seed, is the reproduction (nothing to shrink it with).
		sc := *out.sc
		sc.Seed, sc.Name = out.s.seed, reproName(h.b.sc.Name)
		res.Explanation = "crashed: " + out.panic
		res.Repro = withHeader("Not shrunk: the run panicked outside the algorithm's handlers.", h, out, sc.YAML())
		return
	}
	r, err := h.runOne(out.sc, scenario.RunOptions{Seed: out.s.seed, Algorithm: h.b.over, Story: true})
	if err != nil {
		res.Explanation = fmt.Sprintf("the finding did not replay: %v", err)
		return
	}
	explicit := r.Explicit()
	explicit.Name = reproName(h.b.sc.Name)
	res.Explicit = explicit.YAML()
	res.Explanation = explain(r)
	if h.o.Progress != nil {
		fmt.Fprintf(h.o.Progress, "hunt: shrinking seed %d (%s), at most %v...\n", out.s.seed, strings.Join(out.failure, ", "), h.o.ShrinkBudget)
	}
	sh, err := scenario.Shrink(r, scenario.ShrinkOptions{Budget: h.o.ShrinkBudget, Prepare: h.o.Prepare})
	if err != nil {
		res.Repro = withHeader(fmt.Sprintf("explicit (unshrunk) reproduction: %v", err), h, out, res.Explicit)
		return
	}
	repro := *sh.Scenario
	repro.Name = reproName(h.b.sc.Name)
	note := fmt.Sprintf("Shrunk from %d to %d fault(s), %v to %v, %d to %d node(s) in %d trial runs.",
		sh.FaultsBefore, sh.FaultsAfter, sh.DurationBefore, sh.DurationAfter, sh.NodesBefore, sh.NodesAfter, sh.Runs)
	if sh.TimedOut {
		note += "\nThe shrink ran out of time; a smaller reproduction may exist."
	}
	res.Repro = withHeader(note, h, out, repro.YAML())
	if e := explain(sh.Run); e != "" {
		res.Explanation = e
	}
}

// withHeader prefixes a reproduction with comments saying where it comes
// from and how to replay it.
func withHeader(note string, h *hunter, out *outcome, body []byte) []byte {
	header := fmt.Sprintf(`repro.yaml — found by %s hunt (algorithm %s, -seed %d, run %d, strategy %s)
It fails the same way (%s) and replays bit for bit:
  %s
%s`, h.o.Program, h.b.algo, h.o.Seed, h.res.Runs, out.s.strategy, strings.Join(out.failure, ", "), h.res.Replay, note)
	var b strings.Builder
	for _, line := range strings.Split(header, "\n") {
		b.WriteString("# " + line + "\n")
	}
	b.Write(body)
	return []byte(b.String())
}

// explain is a run's first harmful finding: its kind and story.
func explain(r *scenario.Run) string {
	for _, c := range r.Report.Checks {
		for _, v := range c.Violations {
			if !v.Harmless {
				if v.Explanation != "" {
					return v.Kind + ": " + v.Explanation
				}
				return v.Kind + ": " + v.Details
			}
		}
	}
	return ""
}

// reproName is the reproduction's scenario name: the base's with -repro.
func reproName(name string) string {
	const suffix = "-repro"
	name = strings.TrimSuffix(name, suffix)
	if n := scenario.MaxNameLen - len(suffix); len(name) > n {
		name = name[:n]
	}
	return name + suffix
}
