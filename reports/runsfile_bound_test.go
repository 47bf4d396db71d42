package reports

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// countingReader counts the bytes read from it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// A bound runs reader stops at MaxRunsFileBytes of its run count, however
// far the file would inflate, and at one line more than the count.
func TestRunsReaderBound(t *testing.T) {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	pad := bytes.Repeat([]byte(" "), 8<<20)
	for seed := 1; seed <= 8; seed++ { // 64 MiB inflated, lines of 8 MiB
		fmt.Fprintf(zw, `{"seed":%d,"algorithm":"raft"`, seed)
		_, _ = zw.Write(pad)
		_, _ = zw.Write([]byte("}\n"))
	}
	require.NoError(t, zw.Close())
	src := &countingReader{r: bytes.NewReader(gz.Bytes())}
	rr, err := NewRunsReader(src, "bomb")
	require.NoError(t, err)
	rr.Bound(2)
	var lastErr error
	for lastErr == nil {
		_, _, _, lastErr = rr.Next()
	}
	assert.ErrorContains(t, lastErr, "decompresses to more than")
	// About the bound's share of the compressed file was read, not all.
	assert.Less(t, src.n, int64(gz.Len())/2, "read %d of %d compressed bytes", src.n, gz.Len())

	// More lines than runs: refused at the first extra line.
	var plain bytes.Buffer
	for seed := 1; seed <= 5; seed++ {
		fmt.Fprintf(&plain, "{\"seed\":%d,\"algorithm\":\"raft\"}\n", seed)
	}
	rr, err = NewRunsReader(&plain, "many")
	require.NoError(t, err)
	rr.Bound(3)
	for range 3 {
		_, _, _, err = rr.Next()
		require.NoError(t, err)
	}
	_, _, _, err = rr.Next()
	assert.ErrorContains(t, err, "many:4: more runs than the 3 its summary counts")
	assert.Equal(t, int64(MaxRunLine+2*RunBytesPerRun), MaxRunsFileBytes(2))
}
