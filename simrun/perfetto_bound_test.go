//go:build unix

package simrun

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// -perfetto on a run with more records than MaxPerfettoRecords (an hour of
// long-day.yaml has about 684,000) writes the run's first records, says so
// on stderr, and stays within a bounded memory: it used to record the whole
// trace (2 simulated hours took 4.0 GB; a day would not fit).
func TestPerfettoExportIsBounded(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("an hour-long featured run in a child process")
	}
	dir := t.TempDir()
	longDay, err := filepath.Abs("../scenarios/long-day.yaml")
	require.NoError(t, err)
	code, stderr, rssKB := runChild(t, dir, "-scenario", longDay, "-set", "duration=1h", "-shrink=false", "-out", "o", "-perfetto", "p.json")
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stderr, "-perfetto: the featured run has more than "+strconv.Itoa(MaxPerfettoRecords)+" records")
	b, err := os.ReadFile(filepath.Join(dir, "p.json"))
	require.NoError(t, err)
	assert.True(t, bytes.HasPrefix(b, []byte(`{"traceEvents":[`)))
	assert.True(t, bytes.HasSuffix(b, []byte("\n],\n\"displayTimeUnit\":\"ms\"}\n")), "a complete file")
	assert.Equal(t, 1, bytes.Count(b, []byte(`"name":"export truncated"`)))
	assert.Contains(t, string(b), `"args":{"records":`+strconv.Itoa(MaxPerfettoRecords)+`}`)
	assert.Less(t, rssKB, int64(768<<10), "peak RSS in KB: the export's bound, not the run's length")
}
