package simrun

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// On a machine without the server, simrun reality names the missing
// Debian package in one line and exits 2 (issue 37's acceptance).
func TestRealityNamesTheMissingPackage(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	var out, errb bytes.Buffer
	code := run([]string{"reality", "-scenario", "../reality/stories/redis-gc-pause.yaml"}, &out, &errb)
	require.Equal(t, exitUsage, code)
	require.Empty(t, out.String())
	require.Equal(t, 1, strings.Count(errb.String(), "\n"), errb.String())
	require.Contains(t, errb.String(), "apt-get install -y redis-server")
}

func TestRealityRefusesAStoryItCannotPlay(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"reality", "-scenario", "../scenarios/gc-pause-unfenced.yaml"}, &out, &errb)
	require.Equal(t, exitUsage, code)
	require.Equal(t, 1, strings.Count(errb.String(), "\n"), errb.String())
	require.Contains(t, errb.String(), "after: job_started")
}

func TestRealityUsage(t *testing.T) {
	var out, errb bytes.Buffer
	require.Equal(t, exitUsage, run([]string{"reality"}, &out, &errb))
	require.Contains(t, errb.String(), "-scenario FILE is required")
	out.Reset()
	require.Equal(t, exitOK, run([]string{"reality", "-h"}, &out, &errb))
	require.Contains(t, out.String(), "usage: simrun reality -scenario FILE")
}
