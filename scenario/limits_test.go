package scenario

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A UTF-8 byte order mark is accepted; binary and UTF-16 input get one
// clear line, never the input echoed.
func TestEncodings(t *testing.T) {
	src, err := os.ReadFile(shipped("partition.yaml"))
	require.NoError(t, err)
	sc, err := Parse("bom.yaml", append([]byte("\xef\xbb\xbf"), src...))
	require.NoError(t, err)
	assert.Equal(t, "partition", sc.Name)

	_, err = Parse("bin.yaml", []byte("name: x\x00\x01\x02 and more binary"))
	require.Error(t, err)
	assert.Equal(t, "bin.yaml:1:8: the file contains a NUL byte: it is binary (or UTF-16), not YAML text", err.Error())
	_, err = Parse("u16.yaml", []byte{0xff, 0xfe, 'n', 0})
	require.EqualError(t, err, "u16.yaml:1:1: the file is UTF-16; save it as UTF-8")
	_, err = Parse("latin1.yaml", []byte("name: caf\xe9\n"))
	require.EqualError(t, err, "latin1.yaml:1:10: the file is not valid UTF-8 text")
}

// The limits are checked before parsing, each with its position.
func TestPreScanLimits(t *testing.T) {
	cases := map[string]string{
		"nesting deeper than 64 levels": "x: " + strings.Repeat("[", 65) + strings.Repeat("]", 65),
		"more than 1000 keys":           "x:\n" + strings.Repeat("  k: 1\n", 1001),
		"more than 50000 values":        "x: [" + strings.Repeat("1,", 50_001) + "1]",
		"indented more than 256":        "x:\n" + strings.Repeat(" ", 300) + "y: 1",
	}
	for want, src := range cases {
		_, err := preScan("f.yaml", []byte(src), MaxFileBytes)
		require.NotNil(t, err, want)
		assert.Contains(t, err.Msg, want)
	}
	// What stays within them passes: brackets in quotes and comments do
	// not count, list items open fresh mappings, an apostrophe in a plain
	// scalar does not hide later brackets.
	ok := []string{
		"d: \"" + strings.Repeat("[", 100) + "\"\n# " + strings.Repeat("{", 100),
		"faults:\n" + strings.Repeat("  - {at: 1s, pause: n1, for: 1s}\n", 2000),
		"faults:\n" + strings.Repeat("  - at: 1s\n    pause: n1\n    for: 1s\n", 1000),
		"description: it's fine\nx: [1, 2]",
	}
	for _, src := range ok {
		_, err := preScan("f.yaml", []byte(src), MaxFileBytes)
		assert.Nil(t, err, src[:20])
	}
	_, err := preScan("f.yaml", []byte("description: it's\nx: "+strings.Repeat("[", 65)), MaxFileBytes)
	require.NotNil(t, err, "an apostrophe must not hide nesting")
}

func TestValidName(t *testing.T) {
	for _, ok := range []string{"partition", "gc-pause_2.v1", "A"} {
		assert.NoError(t, ValidName(ok), ok)
	}
	for _, bad := range []string{"", "../x", ".hidden", "a/b", `a\b`, "a b", strings.Repeat("x", 65), "ü"} {
		assert.Error(t, ValidName(bad), bad)
	}
}
