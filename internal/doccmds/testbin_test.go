package doccmds

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSplitTest(t *testing.T) {
	r, ok := SplitTest("go test -count=1 ./algorithms/raftelect ./algorithms/lease -run TestInteraction -rewrite")
	require.True(t, ok)
	assert.Equal(t, TestRun{Pkgs: []string{"./algorithms/raftelect", "./algorithms/lease"},
		Args: []string{"-test.count=1", "-test.run", "TestInteraction", "-rewrite"}}, r)

	r, ok = SplitTest("RAPID_CHECKS=20 go test -v ./scenario -run 'TestX$' -rapid.seed=7 -rewrite")
	require.True(t, ok)
	assert.Equal(t, TestRun{Env: "RAPID_CHECKS=20", Pkgs: []string{"./scenario"},
		Args: []string{"-test.v", "-test.run", "'TestX$'", "-rapid.seed=7", "-rewrite"}}, r)

	for _, no := range []string{
		"go test ./...",                       // a pattern
		"go test -race ./sim",                 // a build flag
		"go test ./sim -run '^$' -fuzz FuzzX", // fuzzing needs go test's instrumented build
		"go test -c -o /tmp/x.test ./simrun",  // writes a binary
		"go test ./sim -rewrite && git diff",  // two commands
		"go vet ./sim",                        // not go test
		"go test -run X",                      // no package
		"go test -count=1 ./reports -json",    // go test's own output
		"go test ./sim -coverprofile=c.out",   // a profile
	} {
		_, ok := SplitTest(no)
		assert.False(t, ok, no)
	}
}
