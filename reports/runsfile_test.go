package reports

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runsFile writes runs (gzip or not) and returns the bytes.
func runsFile(t *testing.T, compress bool, runs ...RunSummary) []byte {
	var buf bytes.Buffer
	w := NewRunsWriter(&buf, compress)
	for i := range runs {
		line, err := EncodeRun(&runs[i])
		require.NoError(t, err)
		require.NoError(t, w.WriteLine(line))
	}
	require.NoError(t, w.Close())
	return buf.Bytes()
}

func reader(t *testing.T, name string, b []byte) *RunsReader {
	r, err := NewRunsReader(bytes.NewReader(b), name)
	require.NoError(t, err)
	return r
}

// Runs written read back equal, compressed or not (told by the content).
func TestRunsFileRoundTrip(t *testing.T) {
	full := synthAll(1, 30, "raft", "bully")
	for _, gz := range []bool{true, false} {
		b := runsFile(t, gz, full.Runs...)
		assert.Equal(t, gz, bytes.HasPrefix(b, []byte{0x1f, 0x8b}))
		r := reader(t, "runs", b)
		for _, want := range full.Runs {
			line, key, seed, err := r.Next()
			require.NoError(t, err)
			assert.Equal(t, want.Key(), key)
			assert.Equal(t, want.Seed, seed)
			got, err := r.Run(line)
			require.NoError(t, err)
			assert.Equal(t, want, got)
		}
		_, _, _, err := r.Next()
		assert.Equal(t, io.EOF, err)
		require.NoError(t, r.Close())
	}
}

// MergeRuns interleaves shards' files into run order (group rank, then
// seed) and refuses a file out of order, a run in two files, a group the
// summaries do not know and a line that is not a run.
func TestMergeRuns(t *testing.T) {
	all := synthAll(1, 20, "raft", "bully")
	rank := func(k string) (int, bool) {
		r, ok := map[string]int{"raft": 0, "bully": 1}[k]
		return r, ok
	}
	shardOf := func(i, n int) []RunSummary {
		var out []RunSummary
		for _, r := range all.Runs {
			if int(r.Seed-1)%n == i {
				out = append(out, r)
			}
		}
		return out
	}
	merge := func(files ...[]byte) (string, error) {
		var ins []*RunsReader
		for i, f := range files {
			ins = append(ins, reader(t, fmt.Sprintf("shard%d", i), f))
		}
		var out bytes.Buffer
		w := NewRunsWriter(&out, false)
		n, err := MergeRuns(w, ins, rank)
		require.NoError(t, w.Close())
		if err == nil {
			assert.Equal(t, strings.Count(out.String(), "\n"), n)
		}
		return out.String(), err
	}
	got, err := merge(runsFile(t, true, shardOf(2, 3)...), runsFile(t, false, shardOf(0, 3)...), runsFile(t, true, shardOf(1, 3)...))
	require.NoError(t, err)
	assert.Equal(t, string(runsFile(t, false, all.Runs...)), got)

	s0 := shardOf(0, 2)
	_, err = merge(runsFile(t, false, s0...), runsFile(t, false, s0[:1]...))
	assert.ErrorContains(t, err, "seed 1 of this group is also in shard0")
	_, err = merge(runsFile(t, false, s0[1], s0[0]))
	assert.ErrorContains(t, err, "shard0:2: runs out of order")
	other := s0[0]
	other.Algorithm = "ring"
	_, err = merge(runsFile(t, false, other))
	assert.ErrorContains(t, err, "a run of ring, which the summaries do not aggregate")
	_, err = merge([]byte("{\"seed\": 1}\n"))
	assert.ErrorContains(t, err, "shard0:1: not a run")
	_, err = merge([]byte(strings.Repeat("x", MaxRunLine+1)))
	assert.ErrorContains(t, err, "longer than")
}
