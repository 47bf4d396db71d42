package reality

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// envIntegration switches on the suite that runs every shipped reality
// story against the real servers (.ci/run sets it after installing them);
// envTrials sets the trials per story (default 3: one round of three at
// once per story keeps the thirteen stories within about six minutes).
const (
	envIntegration = "ELECTSIM_REALITY"
	envTrials      = "ELECTSIM_REALITY_TRIALS"
)

func integration(t *testing.T) int {
	t.Helper()
	if os.Getenv(envIntegration) != "1" {
		t.Skipf("set %s=1 to run the stories against the real servers (docs/reality.md)", envIntegration)
	}
	n := 3
	if s := os.Getenv(envTrials); s != "" {
		var err error
		n, err = strconv.Atoi(s)
		require.NoError(t, err, envTrials)
	}
	return n
}

// TestRealityStories runs every story in stories/ against the real
// servers and fails if any row says the simulation is rosier than reality.
func TestRealityStories(t *testing.T) {
	trials := integration(t)
	files, err := filepath.Glob("stories/*.yaml")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			res, err := Run(context.Background(), Options{Scenario: f, Trials: trials, SimSeeds: 200, Workers: 3, Seed: 1})
			var missing *MissingError
			if errors.As(err, &missing) {
				// .ci/run installs the servers tolerantly, as the browser
				// test's: a package source without one skips its stories.
				t.Skipf("%s: %v", f, missing)
			}
			require.NoError(t, err)
			var b strings.Builder
			PrintTable(&b, res.Rows)
			t.Logf("%s (%d of %d trials compared)\n%s", f, res.Compared, trials, b.String())
			require.Greater(t, 2*res.Compared, trials, "most trials must find a holder to fault, or reality is not measured")
			for _, r := range res.Rows {
				if why := KnownRosier(res.Story.Scenario.Name, r); why != "" {
					t.Logf("known difference, row %s: %s", r.Name, why)
					continue
				}
				require.False(t, r.Rosier, "row %s says the simulation is rosier than reality:\n%s", r.Name, b.String())
			}
		})
	}
}

// TestTrialStopsEveryProcessWhenCancelled cancels a trial mid-way, as
// SIGINT does, and checks that no process it started is left.
func TestTrialStopsEveryProcessWhenCancelled(t *testing.T) {
	integration(t)
	st, ad, err := Prepare(Options{Scenario: "stories/redis-gc-pause.yaml"})
	require.NoError(t, err)
	tmp := t.TempDir()
	client := filepath.Join(tmp, "client")
	require.NoError(t, buildClient(context.Background(), ad, client))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_, err = RunTrial(ctx, st, client, tmp, 0, 1, 1)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.Empty(t, children(t), "every server and client is gone")
	entries, err := os.ReadDir(tmp)
	require.NoError(t, err)
	require.Len(t, entries, 1, "only the client binary: the trial's folder is removed")
}

// children lists the processes whose parent is this test process
// (/proc/PID/stat's fourth field).
func children(t *testing.T) []string {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	require.NoError(t, err)
	me := strconv.Itoa(os.Getpid())
	var out []string
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue // gone meanwhile
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) > 1 && f[1] == me {
			out = append(out, e.Name()+" "+s[:strings.LastIndexByte(s, ')')+1])
		}
	}
	return out
}
