package simrun

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The cron modes' per-run counters (cron.Counters, issue 36) reach
// runs.jsonl (each run's own), summary.json (summed per algorithm) and
// report.html, and merge sums the shards' counts.
func TestCronCountersReachTheOutputs(t *testing.T) {
	skipUnderRace(t)
	dir := t.TempDir()
	const sc = "../scenarios/celery-short-lock.yaml"
	perRun := 0
	for i, shard := range []string{"0/2", "1/2"} {
		out, runs := filepath.Join(dir, strconv.Itoa(i)), filepath.Join(dir, "runs"+strconv.Itoa(i)+".jsonl")
		code, stdout, stderr := simrun(t, "-scenario", sc, "-seeds", "4", "-shard", shard, "-workers", "1", "-quiet", "-shrink=false", "-out", out, "-runs", runs)
		require.Equal(t, exitOK, code, stdout+stderr)
		f, err := os.Open(runs)
		require.NoError(t, err)
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		lines := 0
		for sc.Scan() {
			var r struct {
				Counters map[string]int `json:"counters"`
			}
			require.NoError(t, json.Unmarshal(sc.Bytes(), &r))
			assert.Positive(t, r.Counters["beat_exits"], "each run's own count")
			perRun += r.Counters["beat_exits"]
			lines++
		}
		require.NoError(t, f.Close())
		assert.Equal(t, 2, lines)
		s := readSummary(t, filepath.Join(out, "summary.json"))
		require.Len(t, s.Algorithms, 1)
		assert.Positive(t, s.Algorithms[0].Counters["beat_exits"])
		html, err := os.ReadFile(filepath.Join(out, "report.html"))
		require.NoError(t, err)
		assert.Contains(t, string(html), "Cron mode counters")
		assert.Contains(t, string(html), "beat_exits")
	}
	m := filepath.Join(dir, "merged")
	code, stdout, stderr := simrun(t, "merge", "-quiet", "-out", m, filepath.Join(dir, "0"), filepath.Join(dir, "1"))
	require.Equal(t, exitOK, code, stdout+stderr)
	s := readSummary(t, filepath.Join(m, "summary.json"))
	require.Len(t, s.Algorithms, 1)
	assert.Equal(t, perRun, s.Algorithms[0].Counters["beat_exits"], "merge sums the shards")
	assert.Equal(t, 4, s.Algorithms[0].Runs)
}
