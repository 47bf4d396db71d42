package customtest

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/scenario"
	"github.com/electsim/electsim/simrun"
)

// docs/hunting.md, "Isolation": simrun hunt of a user algorithm whose
// handler overflows its stack, never returns, calls os.Exit or starts a
// goroutine (the buggy
// algorithm, crash_test.go) runs its runs in worker processes: the run
// that kills its worker is the hunt's crashed finding, with its seed, the
// fatal error and the user's frames, a repro.yaml with that seed and the
// replay command, and exit 1. The hunt process survives it, and the same
// -seed finds the same run again.
func TestHuntIsolatesBuggyAlgorithm(t *testing.T) {
	if testing.Short() {
		t.Skip("starts worker processes")
	}
	dir := t.TempDir()
	for bug, tc := range map[string]struct{ want, timeout string }{
		"recurse":   {"fatal error: stack overflow", "20s"},
		"loop":      {"fatal error: a handler did not return within 300ms (-handler-timeout)", "300ms"},
		"exit":      {"the worker process exited with status 0 during the run", "10s"},
		"goroutine": {"fatal error: n2 OnTimer(tag=1) broke the engine's contract: started 1 goroutine", "10s"},
	} {
		t.Run(bug, func(t *testing.T) {
			hunt := func(out string) (int, string, string) {
				var stdout, stderr bytes.Buffer
				// -checks crashed: lowest, a toy, breaks the base's
				// safety expectations under faults too; only the crash
				// is wanted here.
				code := simrun.Main([]string{"hunt", "-algo", "buggy", "-set", "algorithm.bug=" + bug, "-checks", "crashed",
					"-runs", "30", "-seed", "3", "-workers", "1", "-isolate", "-handler-timeout", tc.timeout,
					"-out", filepath.Join(dir, out)}, &stdout, &stderr)
				return code, stdout.String(), stderr.String()
			}
			code, out, errs := hunt(bug)
			require.Equal(t, 1, code, "exit 1: found\n%s\n%s", out, errs)
			assert.Contains(t, errs, "runs in 1 worker process (-isolate)")
			assert.Contains(t, out, "found: crashed after ")
			assert.Contains(t, out, tc.want)
			if bug != "exit" && bug != "goroutine" { // a goroutine's creation line shows only while it lives
				assert.Contains(t, out, "customtest.(*buggy).", "the stack shows the user's handler")
			}
			m := regexp.MustCompile(`run seed (\d+)\)`).FindStringSubmatch(out)
			require.NotNil(t, m, out)
			repro := filepath.Join(dir, bug, "repro.yaml")
			assert.Contains(t, out, "replay: ")
			assert.Contains(t, out, " -scenario "+repro+"\n")
			src, err := os.ReadFile(repro)
			require.NoError(t, err)
			assert.Contains(t, string(src), "worker process died")
			sc, err := scenario.Parse(repro, src)
			require.NoError(t, err)
			assert.Equal(t, m[1], uitoa(sc.Seed), "the repro replays the run's seed")
			// The same -seed finds the same run: the found line but for
			// its wall time.
			code, again, errs := hunt(bug + "-again")
			require.Equal(t, 1, code, errs)
			assert.Equal(t, foundLine(out), foundLine(again))
		})
	}
}

// foundLine is hunt's "found:" line without its wall time.
func foundLine(out string) string {
	m := regexp.MustCompile(`(?m)^found: .*$`).FindString(out)
	return regexp.MustCompile(` in [0-9.]+[a-zµ]+ \(`).ReplaceAllString(m, " (")
}
