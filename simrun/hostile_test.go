//go:build unix

package simrun

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/sim"
)

// hostileRSSKB is the peak memory every hostile input must stay within
// (docs/output.md, "Limits"). The tests bound memory and work (events),
// never wall time: a busy machine takes longer, not more.
const hostileRSSKB = 256 << 10

// runawayEvents bounds a runaway run's events: the event-rate guard stops
// it within one rate window of MaxEventRate × RateWindow events (100,000),
// two windows allowing for the healthy events before the runaway.
const runawayEvents = 2 * sim.DefaultMaxEventRate * uint64(sim.DefaultRateWindow) / uint64(time.Second)

// snapshot lists every file and folder under dir with its size and mode,
// to show that a run changed nothing.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		size := info.Size()
		if d.IsDir() {
			size = 0
		}
		b.WriteString(rel + " " + info.Mode().String() + " " + string(rune('0'+size%10)) + "\n")
		return nil
	}))
	return b.String()
}

// runChild runs this test binary as simrun in dir, and returns its exit
// status, stderr and peak RSS in KB (runBounded).
func runChild(t *testing.T, dir string, args ...string) (int, string, int64) {
	t.Helper()
	r := runBounded(t, dir, args...)
	return r.code, r.stderr, r.rssKB
}

// Hostile inputs (simrun/testdata/hostile, and files generated here):
// each ends with exit 2 and a one-line reason, within the memory limit,
// and nothing in the working folder changes (a victim folder
// beside it included).
func TestHostileInputs(t *testing.T) {
	skipUnderRace(t)
	if testing.Short() {
		t.Skip("runs simrun as child processes")
	}
	src, err := filepath.Abs("testdata/hostile")
	require.NoError(t, err)
	partitionAbs, err := filepath.Abs(partition)
	require.NoError(t, err)
	root := t.TempDir()
	dir := filepath.Join(root, "work")
	victim := filepath.Join(root, "victim")
	require.NoError(t, os.MkdirAll(filepath.Join(victim, "keep"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(victim, "keep", "data.txt"), []byte("precious"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "out", "other-scenario"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "out", "other-scenario", "report.html"), []byte("another run's report"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("my notes"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "mine"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "mine", "thesis.tex"), []byte("chapter 1"), 0o644))
	// Generated inputs: too big, too deep, too wide, binary, UTF-16.
	gen := map[string][]byte{
		"deep.yaml":   []byte("name: x\nduration: 1s\nalgorithm: {name: raft}\nfaults: " + strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000) + "\n"),
		"huge.yaml":   []byte("name: x\nduration: 1s\nalgorithm: {name: raft}\nfaults:\n" + strings.Repeat("  - {at: 1s, pause: n1, for: 1s}\n", 1_700_000)),
		"keys.yaml":   []byte("name: x\nduration: 1s\nalgorithm: {name: raft}\nexpect:\n" + keys(49_000)),
		"wide.yaml":   []byte("name: x\nduration: 1s\nalgorithm: {name: raft}\nx: [" + strings.Repeat("1,", 400_000) + "1]\n"),
		"binary.yaml": bytes.Repeat([]byte{0, 1, 2, 'b', 'i', 'n'}, 1000),
		"utf16.yaml":  {0xff, 0xfe, 'n', 0, 'a', 0, 'm', 0, 'e', 0},
	}
	for name, body := range gen {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), body, 0o644))
	}
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"traversal name", []string{"-scenario", filepath.Join(src, "traversal-name.yaml")}, `name: "../../victim" starts with '.'`},
		{"empty name", []string{"-scenario", filepath.Join(src, "empty-name.yaml")}, "name: empty"},
		{"separator in name", []string{"-scenario", filepath.Join(src, "slash-name.yaml")}, `contains "/"`},
		{"matrix traversal name", []string{"-matrix", filepath.Join(src, "matrix-traversal.yaml")}, "name:"},
		{"-out an existing file", []string{"-scenario", partitionAbs, "-out", "notes.txt"}, "is not a folder"},
		{"-out a folder of someone else's", []string{"-scenario", partitionAbs, "-out", "mine"}, "simrun did not create"},
		{"-trace into a folder", []string{"-scenario", partitionAbs, "-out", "o", "-trace", "mine"}, "is a folder"},
		{"two outputs, one path", []string{"-scenario", partitionAbs, "-json", "x.json", "-trace", "./x.json"}, "name the same path"},
		{"alias bomb", []string{"-scenario", filepath.Join(src, "alias-bomb.yaml")}, "more than 100000 nodes"},
		{"matrix alias bomb", []string{"-matrix", filepath.Join(src, "matrix-alias-bomb.yaml")}, "more than 100000 nodes"},
		{"100,000 nested [", []string{"-scenario", "deep.yaml"}, "nesting deeper than 64 levels"},
		{"a 53 MB fault list", []string{"-scenario", "huge.yaml"}, "at most 1 MiB"},
		{"a mapping of 49,000 keys", []string{"-scenario", "keys.yaml"}, "more than 1000 keys"},
		{"400,000 values", []string{"-scenario", "wide.yaml"}, "more than 50000 values"},
		{"binary", []string{"-scenario", "binary.yaml"}, "binary"},
		{"UTF-16", []string{"-scenario", "utf16.yaml"}, "UTF-16"},
		{"-seeds 2^63-1", []string{"-scenario", partitionAbs, "-seeds", "9223372036854775807"}, "more than 100000"},
		{"-seed past 2^64", []string{"-scenario", partitionAbs, "-seed", "18446744073709551615", "-seeds", "2"}, "past the last seed"},
		{"negative -shrink-time", []string{"-scenario", partitionAbs, "-shrink-time", "-1s"}, "must not be negative"},
		{"negative -porcupine-timeout", []string{"-scenario", partitionAbs, "-porcupine-timeout", "-1s"}, "must not be negative"},
		{"-set too long", []string{"-scenario", partitionAbs, "-set", "name=" + strings.Repeat("a", 70_000)}, "larger than"},
	}
	before := snapshot(t, root)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, stderr, rss := runChild(t, dir, c.args...)
			assert.Equal(t, exitUsage, code, stderr)
			assert.Contains(t, stderr, c.want)
			assert.Less(t, len(stderr), 4096, "one clear message, not the input echoed")
			if !raceEnabled {
				assert.Less(t, rss, int64(hostileRSSKB), "peak RSS in KB")
			}
			assert.Equal(t, before, snapshot(t, root), "the run changed files")
		})
	}
	data, err := os.ReadFile(filepath.Join(victim, "keep", "data.txt"))
	require.NoError(t, err)
	require.Equal(t, "precious", string(data))
}

func keys(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteString("  k")
		b.WriteString(strings.Repeat("x", i%7))
		b.WriteString(string(rune('a'+i%26)) + string(rune('a'+i/26%26)) + string(rune('a'+i/676%26)) + ": 1\n")
	}
	return b.String()
}

// Runaway timers end with a classified budget outcome within the hostile
// memory limit and a bounded number of events: 1 ns bully timers on 5
// nodes, and on 64, where each timer firing broadcasts to 63 nodes (before
// the in-flight bound, 2.1 GB). Measured: 62,502 and 4,000 events, ending
// budget_exhausted:in_flight, 120 and 150 MB.
func TestRunawayTimersBounded(t *testing.T) {
	skipUnderRace(t)
	dir := t.TempDir()
	bully, err := filepath.Abs("../scenarios/bully-partition.yaml")
	require.NoError(t, err)
	for _, nodes := range []string{"5", "64"} {
		t.Run(nodes+" nodes", func(t *testing.T) {
			js := filepath.Join(dir, "s"+nodes+".json")
			code, stderr, rss := runChild(t, dir, "-scenario", bully, "-set", "algorithm.heartbeat=1ns", "-set", "cluster.nodes="+nodes,
				"-shrink=false", "-quiet", "-out", "o"+nodes, "-json", js)
			require.Equal(t, exitViolation, code, stderr)
			s := readSummary(t, js)
			require.Len(t, s.Runs, 1)
			assert.Contains(t, s.Runs[0].Outcome, "budget_exhausted:")
			assert.LessOrEqual(t, s.Runs[0].Events, runawayEvents, "the run's events")
			if !raceEnabled {
				assert.Less(t, rss, int64(hostileRSSKB), "peak RSS in KB")
			}
		})
	}
}
