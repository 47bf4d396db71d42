package scenario

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"
)

// roundTripCorpus is every scenario the writer test reads: the shipped
// catalogue and testdata/roundtrip, whose files set the keys no shipped
// scenario needs (every-field.yaml sets every key to a non-default value).
func roundTripCorpus(t *testing.T) []string {
	extra, err := filepath.Glob(filepath.Join("testdata", "roundtrip", "*.yaml"))
	require.NoError(t, err)
	require.NotEmpty(t, extra)
	return append(shippedScenarios(t), extra...)
}

// forgetPositions clears what a scenario remembers of its source text
// (positions for error messages, the file's hash), which a rewrite
// legitimately changes.
func forgetPositions(sc *Scenario) {
	sc.SourceSHA256 = ""
	sc.Algorithm.at, sc.algoTree = nil, nil
	for i := range sc.Algorithm.values {
		sc.Algorithm.values[i].at = nil
	}
	sc.Network.latencyN = nil
	if sc.Cron != nil {
		sc.Cron.scheduleAt = nil
	}
}

// TestWriterRoundTrips: Scenario.YAML is what shrinking and -print write,
// and a repro file must be the scenario that failed. For every file of
// the corpus, reading back what the writer wrote gives an equal scenario
// (so a field the writer drops or misspells fails here), and writing that
// again gives the same bytes.
func TestWriterRoundTrips(t *testing.T) {
	for _, f := range roundTripCorpus(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			src, err := os.ReadFile(f)
			require.NoError(t, err)
			first, err := Parse(f, src)
			require.NoError(t, err)
			out := first.YAML()
			again, err := Parse(f, out)
			require.NoError(t, err, "the writer wrote a file the reader refuses:\n%s", out)
			require.Equal(t, string(out), string(again.YAML()), "writing is not stable")
			forgetPositions(first)
			forgetPositions(again)
			require.Equal(t, first, again, "read back differently from:\n%s", out)
		})
	}
}

// refusedOnly are keys the reader asks for only to refuse them with a
// better message than "unknown field"; no valid file sets them.
var refusedOnly = map[string]bool{
	"faults[].pause.wipe_disk":  true, // "applies only to crash and restart"
	"faults[].resign.wipe_disk": true,
	// validateJobSpec: successPolicy requires indexed completion mode.
	"cron.kubernetes.success_policy": true,
}

// TestWriterCoversEveryKey guards the round trip's reach: every key the
// reader knows at every place it reads one (collected while reading the
// corpus) is set by some corpus file, so TestWriterRoundTrips exercises
// it. A key added to the reader fails here until a corpus file sets it —
// and then the round trip proves the writer writes it.
func TestWriterCoversEveryKey(t *testing.T) {
	index := regexp.MustCompile(`\[\d+\]`)
	known := map[string]bool{}
	set := map[string]bool{}
	for _, f := range roundTripCorpus(t) {
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		sc, err := Parse(f, src)
		require.NoError(t, err)
		_, err = parseWith(f, src, nil, func(path, key string, present bool) {
			path = index.ReplaceAllString(path, "[]")
			if path == "algorithm" && key != "name" {
				// Parameters are per algorithm: raft's heartbeat
				// written says nothing of bully's.
				path = "algorithm(" + sc.Algorithm.Name + ")"
			}
			k := join(path, key)
			if refusedOnly[k] {
				return
			}
			known[k] = true
			if present {
				set[k] = true
			}
		}, ParseOptions{})
		require.NoError(t, err)
	}
	var unset []string
	for k := range known {
		if !set[k] {
			unset = append(unset, k)
		}
	}
	sort.Strings(unset)
	require.Empty(t, unset, "keys the reader knows that no file of the corpus sets (add them to testdata/roundtrip/every-field.yaml)")
	require.Greater(t, len(known), 100, "the census saw too few keys to mean anything")
}
