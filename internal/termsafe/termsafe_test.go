package termsafe

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

func TestClean(t *testing.T) {
	for in, want := range map[string]string{
		"plain text × … é":      "plain text × … é",
		"\x1b]0;pwned\x07":      `\x1b]0;pwned\x07`,
		"a\x1b[2Jb":             `a\x1b[2Jb`,
		"evil\u202etxt.exe":     `evil\u202etxt.exe`,
		"c1 \u0085 \u009b":      `c1 \u0085 \u009b`,
		"del\x7f bad\xff":       `del\u007f bad\xff`,
		"two\nlines\tand\rtab":  `two\x0alines\x09and\x0dtab`,
		"isolate \u2066x\u2069": `isolate \u2066x\u2069`,
		"line sep \u2028":       `line sep \u2028`,
	} {
		assert.Equal(t, want, Clean(in), "%q", in)
	}
}

// Nothing a Writer passes on holds ESC, another control byte but newline,
// tab and carriage return, or a bidi control, however the input is split
// into writes; input with none passes unchanged.
func TestWriterNeverPassesControls(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		parts := rapid.SliceOf(rapid.SliceOf(rapid.Byte())).Draw(t, "parts")
		var out bytes.Buffer
		w := NewWriter(&out)
		for _, p := range parts {
			n, err := w.Write(p)
			require.NoError(t, err)
			require.Equal(t, len(p), n)
		}
		require.NoError(t, w.Flush())
		for _, r := range out.String() {
			require.True(t, keep(r, true), "%q passed", r)
		}
	})
	var out bytes.Buffer
	w := NewWriter(&out)
	s := "héllo — wörld ✓\n\tnext\r"
	for i := range len(s) { // one byte a write: runes split across writes
		_, _ = w.Write([]byte{s[i]})
	}
	require.NoError(t, w.Flush())
	assert.Equal(t, s, out.String())
}

// JSON that passes through stays valid and equal.
func TestWriterKeepsJSON(t *testing.T) {
	in := map[string]string{"d": "a\u202eb\u0085c\x7f\x1b"}
	b, err := json.Marshal(in)
	require.NoError(t, err)
	var out bytes.Buffer
	_, _ = NewWriter(&out).Write(b)
	var back map[string]string
	require.NoError(t, json.Unmarshal(out.Bytes(), &back))
	assert.Equal(t, in, back)
	assert.NotContains(t, out.String(), "\u202e")
}
