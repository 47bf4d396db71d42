package scenario

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReparserReadsAsParse: the Reparser reads every shipped scenario,
// each with its faults, then with other faults and none, as Parse does
// (the same scenario, written back the same), reading the rest once.
func TestReparserReadsAsParse(t *testing.T) {
	files, err := filepath.Glob("../scenarios/*.yaml")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	var p Reparser
	for _, f := range files {
		if strings.HasPrefix(filepath.Base(f), "matrix") {
			continue // a comparison matrix, not a scenario
		}
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		sc, err := Parse(f, src)
		require.NoError(t, err, f)
		canon := sc.YAML() // faults as the writer puts them: the hunt's form
		variants := [][]byte{canon}
		if len(sc.Faults) > 0 {
			one := *sc
			one.Faults = sc.Faults[:1]
			variants = append(variants, one.YAML())
		}
		for _, v := range append(variants, canon) {
			want, werr := Parse(f, v)
			got, gerr := p.Parse(f, v)
			require.Equal(t, werr == nil, gerr == nil, "%s: %v / %v", f, werr, gerr)
			if werr != nil {
				assert.Equal(t, werr.Error(), gerr.Error(), f)
				continue
			}
			assert.Equal(t, string(want.YAML()), string(got.YAML()), f)
			assert.Equal(t, want.SourceSHA256, got.SourceSHA256, f)
		}
	}
}

// TestReparserErrorsAsParse: an error in the faults section is placed as
// Parse places it; a file with no faults section is Parse's.
func TestReparserErrorsAsParse(t *testing.T) {
	src := []byte("name: x\nduration: 20s\nalgorithm: {name: raft}\nfaults:\n  - {at: 30s, crash: n1}\nsettle: {for: 5s}\n")
	var p Reparser
	_, want := Parse("x.yaml", src)
	require.Error(t, want)
	_, got := p.Parse("x.yaml", src)
	require.Error(t, got)
	assert.Equal(t, want.Error(), got.Error())

	_, ok := func() ([]byte, bool) { r, _, _, ok := splitFaults([]byte("name: x\n")); return r, ok }()
	assert.False(t, ok)
}
