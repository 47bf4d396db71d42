package simrun

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/reports"
)

// chromium is the headless browser the report's script is checked in, or
// "" (the test then skips, unless ELECTSIM_BROWSER_TESTS=1 says the
// machine must have one: .ci/run installs Debian's chromium and sets it).
func chromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("ELECTSIM_BROWSER_TESTS") == "1" {
		t.Fatal("ELECTSIM_BROWSER_TESTS=1 but no chromium on PATH")
	}
	t.Skip("no chromium on PATH (set ELECTSIM_BROWSER_TESTS=1 to require it)")
	return ""
}

// The report's space-time diagram, loaded in headless Chromium, draws one
// arrow per message of the featured run: every delivery and every loss.
func TestSpaceTimeRendersEveryMessage(t *testing.T) {
	if raceEnabled {
		t.Skip("a page in a headless browser; the plain run checks it, and -race checks the sweep elsewhere")
	}
	browser := chromium(t)
	dir := t.TempDir()
	code, _, e := simrun(t, "-scenario", partition, "-out", dir, "-quiet", "-shrink=false")
	require.Equal(t, exitOK, code, e)
	st := pageSpaceTime(t, dir)
	s := readSummary(t, filepath.Join(dir, "summary.json"))
	sent := 0
	for _, n := range s.Runs[0].MessagesByKind {
		sent += int(n)
	}
	require.Equal(t, sent, st.Total, "every message sent is delivered or lost once (no duplication here)")
	require.Len(t, st.Messages, st.Total, "under the cap: all drawn")

	dom := renderedReport(t, browser, dir)
	arrows := strings.Count(dom, `<line class="msg `)
	assert.Equal(t, len(st.Messages), arrows, "one arrow per message")
	assert.Equal(t, strings.Count(dom, `<line class="msg dropped"`), countFate(st, "dropped"))
	assert.Contains(t, dom, `data-rendered="`)
}

// A long run whose first fault comes after the diagram's first messages
// opens on that fault: the page draws the lead-up and what followed, and
// its view window lies inside what is drawn, around the fault.
func TestSpaceTimeOpensOnALateFirstFault(t *testing.T) {
	if raceEnabled {
		t.Skip("a page in a headless browser; the plain run checks it, and -race checks the sweep elsewhere")
	}
	browser := chromium(t)
	dir := t.TempDir()
	code, _, e := simrun(t, "-scenario", partition, "-set", "duration=10m", "-set", "faults[0].at=5m", "-out", dir, "-quiet", "-shrink=false")
	require.Equal(t, exitOK, code, e)
	st := pageSpaceTime(t, dir)
	require.True(t, st.Truncated())
	require.Greater(t, st.StartMs, 240_000.0)
	require.Less(t, st.StartMs, 300_000.0, "the lead-up starts before the fault at 5 min")
	dom := renderedReport(t, browser, dir)
	assert.Equal(t, len(st.Messages), strings.Count(dom, `<line class="msg `), "one arrow per message")
	assert.Contains(t, dom, "the lead-up to the first fault")
	m := regexp.MustCompile(`<span id="st-span">([0-9.]+) s – ([0-9.]+) s</span>`).FindStringSubmatch(dom)
	require.NotNil(t, m, "the view window is shown")
	t0, err := strconv.ParseFloat(m[1], 64)
	require.NoError(t, err)
	t1, err := strconv.ParseFloat(m[2], 64)
	require.NoError(t, err)
	assert.Less(t, t0, 300.0)
	assert.Greater(t, t1, 300.0, "the window holds the fault")
	assert.GreaterOrEqual(t, t0, st.StartMs/1000-0.001)
	assert.LessOrEqual(t, t1, st.EndMs/1000+0.001)
}

// pageSpaceTime is the diagram data embedded in dir's report.
func pageSpaceTime(t *testing.T, dir string) reports.SpaceTime {
	page, err := os.ReadFile(filepath.Join(dir, "report.html"))
	require.NoError(t, err)
	m := regexp.MustCompile(`(?s)<script id="st-data" type="application/json">(.*?)</script>`).FindSubmatch(page)
	require.NotNil(t, m, "the diagram's data is in the page")
	var st reports.SpaceTime
	require.NoError(t, json.Unmarshal(m[1], &st))
	return st
}

// renderedReport is dir's report.html after its scripts ran in browser.
func renderedReport(t *testing.T, browser, dir string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+filepath.Join(dir, "chromium"), "--dump-dom", "file://"+filepath.Join(dir, "report.html"))
	dom, err := cmd.Output()
	require.NoError(t, err)
	return string(dom)
}

func countFate(st reports.SpaceTime, fate string) int {
	n := 0
	for _, m := range st.Messages {
		if m.Fate == fate {
			n++
		}
	}
	return n
}
