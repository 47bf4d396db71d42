package customtest

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/registry"
	"github.com/electsim/electsim/reports"
	"github.com/electsim/electsim/sim"
	"github.com/electsim/electsim/simrun"
)

// buggy is the lowest election with a bug a user algorithm might ship: at
// n2's 10th timer firing it draws from its stream, and on one draw in three
// (so some seeds hit it and others not) it misbehaves as the "bug"
// parameter says: "panic" indexes out of range, "unknown" sends to a node
// that does not exist, "persist" writes 32 MiB, "recurse" overflows its
// stack, "loop" never returns, "exit" calls os.Exit(0), "goroutine" starts
// a goroutine that calls env after the handler returned, and "waited"
// starts one that calls env and waits for it to finish (which breaks the
// contract the same way, though the goroutine is gone when the handler
// returns).
type buggy struct {
	lowest
	bug   string
	fired int
}

func (b *buggy) OnTimer(id sim.TimerID, tag int) {
	b.fired++
	if b.env.Name() == "n2" && b.fired == 10 && b.env.Rand().Intn(3) == 0 {
		switch b.bug {
		case "panic":
			var peers []sim.NodeID
			_ = peers[len(b.peers)]
		case "unknown":
			b.env.Send(sim.Message{Kind: kindHello, To: 99})
		case "persist":
			b.env.Persist(make([]byte, 32<<20))
		case "recurse":
			b.recurse(1)
		case "exit":
			os.Exit(0)
		case "loop":
			for b.env.Now() > 0 { // waits for its clock to move, which it never does inside a handler
			}
		case "goroutine":
			env := b.env
			go func() { env.Send(sim.Message{Kind: kindHello, To: 0}) }()
		case "waited":
			done := make(chan struct{})
			go func() { b.env.Send(sim.Message{Kind: kindHello, To: 0}); close(done) }()
			<-done
		}
	}
	b.lowest.OnTimer(id, tag)
}

// recurse never stops: a stack overflow, fatal in Go.
func (b *buggy) recurse(n int) int { return b.recurse(n+1) + 1 }

func buggyDescriptor() registry.Algorithm {
	a := lowestDescriptor()
	a.Name, a.Doc, a.Package = "buggy", "throwaway: lowest with a seed-dependent bug", "buggy"
	a.Params = append(a.Params, registry.Param{Key: "bug", Kind: registry.Enum, Enum: []string{"panic", "unknown", "persist", "recurse", "loop", "exit", "goroutine", "waited", "build"}, Doc: "panic, unknown, persist, recurse, loop, exit, goroutine, waited or build"})
	build := a.Build
	a.Build = func(v registry.Values, n int, r *sim.Rand) (registry.Factory, error) {
		f, err := build(v, n, r)
		if err != nil {
			return nil, err
		}
		bug := "panic"
		if v.Has("bug") {
			bug = v.String("bug")
		}
		return func(p []sim.NodeID, svc registry.Services) sim.Node {
			if bug == "build" { // while the run is built, before any handler
				go func() {}()
			}
			return &buggy{lowest: *f(p, svc).(*lowest), bug: bug}
		}, nil
	}
	return a
}

func init() { registry.Default.MustRegister(buggyDescriptor()) }

const buggyYAML = `name: buggy-demo
duration: 3s
cluster: {nodes: 3}
algorithm: {name: buggy, interval: 100ms}
settle: {for: 1s, leader_within: 1s}
`

// docs/extending.md, "When your algorithm has a bug": a user algorithm
// that panics (or breaks the engine's contract) at a seed-dependent event
// does not take the sweep down. Each such run is a crashed finding with
// its seed, replay command and stack; the sweep runs every seed, lists the
// failing ones and exits 1; the same seed crashes the same way again.
func TestBuggyAlgorithmCrashesItsRunNotTheSweep(t *testing.T) {
	dir := t.TempDir()
	sc := filepath.Join(dir, "buggy.yaml")
	require.NoError(t, os.WriteFile(sc, []byte(buggyYAML), 0o644))
	for _, bug := range []string{"panic", "unknown", "persist"} {
		t.Run(bug, func(t *testing.T) {
			var out, errb bytes.Buffer
			js := filepath.Join(dir, bug+".json")
			code := simrun.Main([]string{"-scenario", sc, "-set", "algorithm.bug=" + bug, "-seeds", "30", "-shrink=false",
				"-out", filepath.Join(dir, "o-"+bug), "-json", js}, &out, &errb)
			require.Equal(t, 1, code, "exit 1: runs failed\n%s\n%s", out.String(), errb.String())
			var s reports.Summary
			b, err := os.ReadFile(js)
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(b, &s))
			require.Len(t, s.Runs, 30, "every seed ran")
			crashed := 0
			for _, r := range s.Runs {
				if r.Outcome != "crashed" {
					assert.True(t, r.OK, "seed %d: %v", r.Seed, r.Problems)
					assert.Equal(t, "ok", r.Checks["crashed"])
					continue
				}
				crashed++
				assert.False(t, r.OK)
				assert.Equal(t, "violated", r.Checks["crashed"])
				require.NotEmpty(t, r.Violations)
				v := r.Violations[len(r.Violations)-1]
				assert.Equal(t, "crashed", v.Kind)
				assert.Contains(t, v.Replay, "-seed "+uitoa(r.Seed))
				assert.Contains(t, v.Details, "n2 OnTimer(tag=1)")
				if bug == "panic" {
					assert.Contains(t, v.Stack, "customtest.(*buggy).OnTimer", "the stack names the user's handler")
				} else {
					assert.Contains(t, v.Details, "broke the engine's contract")
				}
			}
			assert.Greater(t, crashed, 0, "some seeds hit the bug")
			assert.Less(t, crashed, 30, "and some do not")
			assert.Equal(t, crashed, s.Algorithms[0].Violations["crashed"])
			assert.Contains(t, out.String(), "crashed "+uitoa(uint64(crashed)), "the findings column counts them")

			// The first failing seed is printed with its replay command;
			// run alone, it crashes the same way.
			first := *s.Algorithms[0].FirstFailingSeed
			assert.Contains(t, out.String(), "-set algorithm.bug="+bug+" -seed "+uitoa(first)+"\n")
			if bug == "panic" {
				assert.Contains(t, out.String(), "  github.com/electsim/electsim/registry/customtest.(*buggy).OnTimer\n", "the printed run shows the stack")
			}
			var again reports.RunSummary
			for _, r := range s.Runs {
				if r.Seed == first {
					again = r
				}
			}
			js1 := filepath.Join(dir, bug+"-1.json")
			out.Reset()
			code = simrun.Main([]string{"-scenario", sc, "-set", "algorithm.bug=" + bug, "-seed", uitoa(first), "-shrink=false",
				"-out", filepath.Join(dir, "r-"+bug), "-json", js1}, &out, &errb)
			require.Equal(t, 1, code, errb.String())
			b, err = os.ReadFile(js1)
			require.NoError(t, err)
			var one reports.Summary
			require.NoError(t, json.Unmarshal(b, &one))
			require.Len(t, one.Runs, 1)
			assert.Equal(t, again.TraceHash, one.Runs[0].TraceHash)
			assert.Equal(t, again.Violations[len(again.Violations)-1].Details, one.Runs[0].Violations[len(one.Runs[0].Violations)-1].Details)
			assert.True(t, strings.Contains(out.String(), "crashed"), out.String())
		})
	}
}

// isolatedBuggy is the prologue of a test that starts worker processes: it
// skips under -short, else writes the buggy scenario into a fresh folder
// and returns the folder and the file.
func isolatedBuggy(t *testing.T) (dir, sc string) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts worker processes")
	}
	dir = t.TempDir()
	sc = filepath.Join(dir, "buggy.yaml")
	require.NoError(t, os.WriteFile(sc, []byte(buggyYAML), 0o644))
	return dir, sc
}

func uitoa(u uint64) string {
	b, _ := json.Marshal(u)
	return string(b)
}

// docs/engine.md, "When a handler fails": what the engine cannot recover
// in-process, a stack overflow, a handler that never returns and os.Exit,
// kills only the worker process of an -isolate sweep. The run it was on is
// reported crashed with its seed, replay command and the fatal error; a
// new worker runs the rest; the sweep finishes and exits 1.
func TestIsolatedSweepSurvivesWorkerDeaths(t *testing.T) {
	dir, sc := isolatedBuggy(t)
	// The watchdog's bound leaves the overflow (64 MB of stack) time to
	// happen on a loaded machine.
	for bug, tc := range map[string]struct{ want, timeout string }{
		"recurse": {"fatal error: stack overflow", "20s"},
		"loop":    {"fatal error: a handler did not return within 300ms (-handler-timeout)", "300ms"},
		"exit":    {"the worker process exited with status 0 during the run", "10s"},
		// A goroutine a handler starts is caught when that handler
		// returns, whether it is still to run or already done.
		"goroutine": {"fatal error: n2 OnTimer(tag=1) broke the engine's contract: started 1 goroutine", "10s"},
		"waited":    {"fatal error: n2 OnTimer(tag=1) broke the engine's contract: started 1 goroutine", "10s"},
	} {
		want := tc.want
		t.Run(bug, func(t *testing.T) {
			var out, errb bytes.Buffer
			js := filepath.Join(dir, bug+".json")
			code := simrun.Main([]string{"-scenario", sc, "-set", "algorithm.bug=" + bug, "-seeds", "8", "-isolate", "-workers", "2",
				"-handler-timeout", tc.timeout, "-shrink=false", "-out", filepath.Join(dir, "o-"+bug), "-json", js}, &out, &errb)
			require.Equal(t, 1, code, "exit 1: runs failed\n%s\n%s", out.String(), errb.String())
			var s reports.Summary
			b, err := os.ReadFile(js)
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(b, &s))
			require.Len(t, s.Runs, 8, "every seed is reported")
			died := 0
			for _, r := range s.Runs {
				if !r.WorkerDied {
					assert.True(t, r.OK, "seed %d: %v", r.Seed, r.Problems)
					continue
				}
				died++
				assert.False(t, r.OK)
				assert.Equal(t, "crashed", r.Outcome)
				require.Len(t, r.Violations, 1)
				v := r.Violations[0]
				assert.Equal(t, "crashed", v.Kind)
				assert.Contains(t, v.Details, want)
				assert.Contains(t, v.Replay, "-set algorithm.bug="+bug+" -seed "+uitoa(r.Seed))
				switch bug {
				case "exit", "waited", "goroutine":
					// No user frames to require: the process exited; the
					// guard's stack ends at the engine, and a goroutine's
					// "created by" line shows only while it is still alive,
					// which the scheduler decides (the report's words do
					// not depend on it).
				default:
					assert.Contains(t, v.Stack, "customtest.(*buggy).", "the stack shows the user's handler")
				}
			}
			assert.Greater(t, died, 0, "some seeds hit the bug")
			assert.Less(t, died, 8, "and some do not")
			assert.Equal(t, died, s.Algorithms[0].Violations["crashed"])
			assert.Equal(t, 8-died, s.Algorithms[0].OK)
			assert.Contains(t, out.String(), want)
		})
	}
}

// docs/engine.md, "When a handler fails": a handler that starts a
// goroutine is reported the same way for the same seed, whatever the
// worker count and however often it runs: the same seeds crash, each at the
// handler that started the goroutine, with the same words.
func TestGoroutineReportIsDeterministic(t *testing.T) {
	dir, sc := isolatedBuggy(t)
	for _, bug := range []string{"goroutine", "waited"} {
		var first map[uint64]string
		for i, workers := range []string{"1", "2", "1", "2"} {
			js := filepath.Join(dir, bug+workers+uitoa(uint64(i))+".json")
			var out, errb bytes.Buffer
			code := simrun.Main([]string{"-scenario", sc, "-set", "algorithm.bug=" + bug, "-seeds", "12", "-isolate", "-workers", workers,
				"-shrink=false", "-out", filepath.Join(dir, "o-"+bug+uitoa(uint64(i))), "-json", js}, &out, &errb)
			require.Equal(t, 1, code, "%s\n%s", out.String(), errb.String())
			assert.Contains(t, errb.String(), "a handler may have started a goroutine: a worker process runs its seeds again")
			s := readSummaryFile(t, js)
			got := map[uint64]string{}
			for _, r := range s.Runs {
				got[r.Seed] = r.Outcome
				if r.WorkerDied {
					got[r.Seed] += ": " + r.Violations[0].Details
				}
			}
			require.Len(t, got, 12)
			if first == nil {
				first = got
				continue
			}
			assert.Equal(t, first, got, "%s, sweep %d (-workers %s)", bug, i, workers)
		}
		crashed := 0
		for _, v := range first {
			if strings.HasPrefix(v, "crashed") {
				crashed++
				assert.Contains(t, v, "n2 OnTimer(tag=1) broke the engine's contract: started 1 goroutine")
			}
		}
		assert.Greater(t, crashed, 0, "%s: some seeds hit the bug", bug)
	}
}

// One run of a user algorithm runs in a worker process too (simrun
// isolates it by default outside tests; -isolate here): a seed whose
// handler starts a goroutine exits 1 with the crash and its replay
// command and writes nothing (there is no run to feature in a report);
// a seed that does not is an ordinary clean run.
func TestSingleRunOfUserAlgorithmIsGuarded(t *testing.T) {
	dir, sc := isolatedBuggy(t)
	outcomes := map[int]int{}
	for seed := uint64(1); seed <= 6; seed++ {
		var out, errb bytes.Buffer
		folder := filepath.Join(dir, "o"+uitoa(seed))
		code := simrun.Main([]string{"-scenario", sc, "-set", "algorithm.bug=goroutine", "-seed", uitoa(seed), "-isolate", "-shrink=false", "-out", folder}, &out, &errb)
		outcomes[code]++
		assert.Contains(t, errb.String(), "in 1 worker process (-isolate)")
		switch code {
		case 0:
			assert.FileExists(t, filepath.Join(folder, "report.html"))
		case 1:
			assert.Contains(t, errb.String(), "every run killed its worker process")
			assert.Contains(t, errb.String(), "n2 OnTimer(tag=1) broke the engine's contract: started 1 goroutine")
			assert.Contains(t, errb.String(), "-set algorithm.bug=goroutine -seed "+uitoa(seed)+")")
			assert.NoDirExists(t, folder, "nothing written")
		default:
			t.Fatalf("seed %d: exit %d\n%s\n%s", seed, code, out.String(), errb.String())
		}
	}
	assert.Positive(t, outcomes[0], "some seeds do not hit the bug")
	assert.Positive(t, outcomes[1], "and some do")
}

// A goroutine the algorithm starts while the run is built, before any
// handler, is caught too; the first handler is the first place the guard
// looks, so the report names it and says Build may have done it instead.
func TestGoroutineInBuildIsCaught(t *testing.T) {
	dir, sc := isolatedBuggy(t)
	var out, errb bytes.Buffer
	code := simrun.Main([]string{"-scenario", sc, "-set", "algorithm.bug=build", "-seeds", "3", "-isolate", "-workers", "1",
		"-shrink=false", "-out", filepath.Join(dir, "o")}, &out, &errb)
	require.Equal(t, 1, code, "%s\n%s", out.String(), errb.String())
	assert.Contains(t, errb.String(), "every run killed its worker process")
	assert.Equal(t, 3, strings.Count(errb.String(), "broke the engine's contract: started 3 goroutines, or the algorithm's Build did before it"), errb.String(), "one per node the factory built")
	assert.NoDirExists(t, filepath.Join(dir, "o"), "nothing written")
}
