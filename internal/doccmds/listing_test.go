package doccmds

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestListing(t *testing.T) {
	assert.Equal(t, "go test -list . ./reports ./sim", ListAllCommand([]string{"./sim", "./reports", "./sim"}))
	out := "TestA\nBenchmarkSimHour\nFuzzEngine\nok  \tgithub.com/x/y/sim\t0.01s\n" +
		"?   \tgithub.com/x/y/cmd/z\t[no test files]\n" +
		"TestRoot\nok  \tgithub.com/x/y\t0.01s\n" +
		"FuzzParse\nok  \tgithub.com/x/y/scenario\t(cached)\n"
	l := ParseListing(out, "github.com/x/y")
	assert.Equal(t, Listing{"./sim": {"TestA", "BenchmarkSimHour", "FuzzEngine"}, ".": {"TestRoot"}, "./scenario": {"FuzzParse"}}, l)

	empty, err := l.Check("'^FuzzEngine$'", []string{"./sim"})
	require.NoError(t, err)
	assert.Empty(t, empty)
	empty, err = l.Check("SimHour", []string{"./sim", "./scenario"})
	require.NoError(t, err)
	assert.Equal(t, []string{"./scenario"}, empty, "a package where the pattern names nothing")
	_, err = l.Check(".", []string{"./reports"})
	assert.ErrorContains(t, err, "./reports was not listed", "a package that did not build")
	_, err = l.Check("'('", []string{"./sim"})
	assert.Error(t, err)
}
