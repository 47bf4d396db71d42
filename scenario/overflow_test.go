package scenario

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A duration and settle.for whose sum wraps int64 nanoseconds are still
// longer than MaxRunTime (the sum used to wrap negative and pass).
func TestRunTimeSumDoesNotWrap(t *testing.T) {
	src, err := os.ReadFile("../scenarios/partition.yaml")
	require.NoError(t, err)
	for _, sets := range [][]string{
		{"duration=9223372036854775807ns", "settle.for=2562047h"},
		{"duration=2562047h", "settle.for=2562047h"},
		{"duration=999h", "settle.for=2h"},
	} {
		_, err := ParseWith("partition.yaml", src, sets)
		require.Error(t, err, "%v", sets)
		assert.Contains(t, err.Error(), "is longer than 1000h", "%v", sets)
		assert.NotContains(t, err.Error(), "\n", "one line")
	}
	_, err = ParseWith("partition.yaml", src, []string{"duration=998h", "settle.for=2h"})
	require.NoError(t, err)
}
