package reports

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// WriteJSON/ReadJSON round-trip a sweep exactly, and equal summaries give
// equal bytes (docs/output.md: the summary is deterministic but Timing).
func TestJSONRoundTrip(t *testing.T) {
	s := synthSummary(1, 30, "raft", "bully")
	var a, b bytes.Buffer
	require.NoError(t, WriteJSON(&a, s))
	require.NoError(t, WriteJSON(&b, synthSummary(1, 30, "raft", "bully")))
	assert.Equal(t, a.String(), b.String())
	assert.True(t, strings.HasPrefix(a.String(), "{\n  \"schema\": \"electsim.summary/v2\",\n  \"scenario\": {"), a.String()[:80])
	assert.Contains(t, a.String(), "→ harmless overlap", "HTML escaping is off: explanations stay readable")

	got, err := ReadJSON(&a)
	require.NoError(t, err)
	assert.Equal(t, s, got)
}

func TestWriteJSONSchema(t *testing.T) {
	s := handSummary()
	s.Schema = ""
	var buf bytes.Buffer
	require.NoError(t, WriteJSON(&buf, s))
	assert.Contains(t, buf.String(), `"schema": "electsim.summary/v2"`)
	assert.Equal(t, "", s.Schema, "WriteJSON does not modify its argument")

	s.Schema = "electsim.summary/v0"
	assert.ErrorContains(t, WriteJSON(&buf, s), `schema "electsim.summary/v0"`)
}

func TestReadJSONRejects(t *testing.T) {
	_, err := ReadJSON(strings.NewReader(`{"schema": "electsim.summary/v3", "runs": []}`))
	assert.ErrorContains(t, err, `summary schema "electsim.summary/v3", want "electsim.summary/v2"`)
	_, err = ReadJSON(strings.NewReader(`{"runs": []}`))
	assert.ErrorContains(t, err, `summary schema ""`)
	_, err = ReadJSON(strings.NewReader(`{"schema": `))
	assert.Error(t, err)

	// Fields a newer writer adds are ignored.
	s, err := ReadJSON(strings.NewReader(`{"schema": "electsim.summary/v2", "future_field": 1, "seeds": {"first": 4, "count": 2}}`))
	require.NoError(t, err)
	assert.Equal(t, SeedRange{First: 4, Count: 2}, s.Seeds)
}
