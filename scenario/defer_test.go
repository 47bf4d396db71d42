package scenario

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDeferUserCodeKeepsBuiltinChecks: ParseOptions.DeferUserCode defers
// only the code of algorithms not built into electsim; a built-in
// algorithm's Build still checks the file's parameters, with the same
// words and position as without the option (raft's heartbeat must be
// below its election timeout: algorithms/raftelect's Config.Validate).
func TestDeferUserCodeKeepsBuiltinChecks(t *testing.T) {
	src := []byte("name: x\nduration: 10s\nalgorithm: {name: raft, heartbeat: 1s, election_timeout: 150ms..300ms}\n")
	_, want := Parse("x", src)
	require.Error(t, want)
	_, got := ParseWithOptions("x", src, nil, ParseOptions{DeferUserCode: true})
	require.Error(t, got)
	assert.Equal(t, want.Error(), got.Error())
	assert.Contains(t, got.Error(), "x:3:36: algorithm.heartbeat")
}
