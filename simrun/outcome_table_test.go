package simrun

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/reports"
)

// updateDocs rewrites the outcome table in docs/cron.md from the sweeps
// instead of comparing it: go test ./simrun -run TestOutcomeTable -update.
var updateDocs = flag.Bool("update", false, "rewrite the measured outcome table in docs/cron.md")

// outcomeDoc is the document holding the table between outcomeBegin and
// outcomeEnd; the begin marker states the seed count it was measured with.
const (
	outcomeDoc   = "../docs/cron.md"
	outcomeBegin = "<!-- outcome-table:begin seeds="
	outcomeEnd   = "<!-- outcome-table:end -->"
)

// outcomeModes are the three modes of "the leader dies mid-job" (issue
// 30's seed question), one shipped scenario each.
var outcomeModes = []struct{ mode, file string }{
	{"1 · remote worker", "leader-dies-remote-worker.yaml"},
	{"2 · with its job", "leader-dies-with-its-job.yaml"},
	{"3 · split-brain", "leader-dies-split-brain.yaml"},
}

// The grid every mode runs: both deliveries × the four policies.
const (
	outcomeDelivery = "cron.queue.delivery=at_most_once,at_least_once"
	outcomePolicy   = "cron.policy=[none],[fencing],[idempotency],[fencing, idempotency]"
)

// outcomeColumns are the table's outcome columns: a header and the count
// of runs it shows, from a grid cell's summary.json entry.
var outcomeColumns = []struct {
	head  string
	count func(a *reports.AlgoSummary) int
}{
	{"applied twice (`double_execution`)", func(a *reports.AlgoSummary) int { return a.Violations["double_execution"] }},
	{"harmless duplicate (`duplicate_execution`, harmless only)", func(a *reports.AlgoSummary) int { return a.Harmless["duplicate_execution"] }},
	{"never completed (`lost_slot`)", func(a *reports.AlgoSummary) int { return a.Violations["lost_slot"] }},
	{"no write applied (`missed_slots`)", func(a *reports.AlgoSummary) int { return a.Violations["missed_slots"] }},
	{"stale token applied (`stale_write`)", func(a *reports.AlgoSummary) int { return a.Violations["stale_write"] }},
}

// TestOutcomeTable measures the outcome table of docs/cron.md ("The
// leader dies mid-job: the outcome table") with the simrun commands it
// shows, and fails when the document's numbers differ from the measured
// ones; -update rewrites the table (and its commands) instead.
func TestOutcomeTable(t *testing.T) {
	if testing.Short() || raceEnabled {
		// The plain run checks the table; the sweeps' concurrency is
		// what other tests run under -race.
		t.Skip("runs 3 × 8 grid cells × the documented seed count (about 10 s; ten times that under -race)")
	}
	raw, err := os.ReadFile(outcomeDoc)
	require.NoError(t, err)
	doc := string(raw)
	begin := strings.Index(doc, outcomeBegin)
	require.GreaterOrEqual(t, begin, 0, "%s has no %q marker", outcomeDoc, outcomeBegin)
	m := regexp.MustCompile(`^(\d+) -->\n`).FindStringSubmatch(doc[begin+len(outcomeBegin):])
	require.NotNil(t, m, "the begin marker states its seed count: %sN -->", outcomeBegin)
	seeds, err := strconv.Atoi(m[1])
	require.NoError(t, err)
	require.Positive(t, seeds)
	bodyAt := begin + len(outcomeBegin) + len(m[0])
	end := strings.Index(doc[bodyAt:], outcomeEnd)
	require.GreaterOrEqual(t, end, 0, "%s has no %q marker", outcomeDoc, outcomeEnd)
	end += bodyAt

	got := measureOutcomeTable(t, seeds)
	if *updateDocs {
		require.NoError(t, os.WriteFile(outcomeDoc, []byte(doc[:bodyAt]+got+doc[end:]), 0o644))
		return
	}
	require.Equal(t, doc[bodyAt:end], got, "docs/cron.md's outcome table differs from what simrun measures; rewrite it with go test ./simrun -run TestOutcomeTable -update")
}

// measureOutcomeTable runs the three sweeps in-process and renders the
// commands and the table that go between the markers.
func measureOutcomeTable(t *testing.T, seeds int) string {
	var cmds, rows strings.Builder
	rows.WriteString("| mode | delivery | policy | runs |")
	for _, c := range outcomeColumns {
		rows.WriteString(" " + c.head + " |")
	}
	rows.WriteString("\n|---|---|---|---:|" + strings.Repeat("---:|", len(outcomeColumns)) + "\n")
	for _, md := range outcomeModes {
		fmt.Fprintf(&cmds, "go run ./cmd/simrun -scenario scenarios/%s -seeds %d -vary %s -vary '%s' -quiet\n", md.file, seeds, outcomeDelivery, outcomePolicy)
		dir := filepath.Join(t.TempDir(), "out")
		code, out, errb := simrun(t, "-scenario", "../scenarios/"+md.file, "-seeds", strconv.Itoa(seeds), "-workers", "2", "-shrink=false", "-quiet",
			"-vary", outcomeDelivery, "-vary", outcomePolicy, "-out", dir)
		// Most cells do not meet the scenario's own expect (exit 1): the
		// table is about what happens, not what the file expects.
		require.Contains(t, []int{exitOK, exitViolation}, code, "%s: %s%s", md.file, out, errb)
		s := readSummary(t, filepath.Join(dir, "summary.json"))
		require.Len(t, s.Algorithms, 8, md.file)
		for i := range s.Algorithms {
			a := &s.Algorithms[i]
			require.Len(t, a.Vary, 2)
			require.Equal(t, seeds, a.Runs, "%s %s", md.file, a.Group)
			fmt.Fprintf(&rows, "| %s | %s | `%s` | %d |", md.mode, a.Vary[0], a.Vary[1], a.Runs)
			for _, c := range outcomeColumns {
				rows.WriteString(" " + percentOf(c.count(a), a.Runs) + " |")
			}
			rows.WriteString("\n")
		}
	}
	return "<!-- doccmds: skip " + strconv.Itoa(3*8*seeds) + " runs; simrun's TestOutcomeTable runs these sweeps and compares the table below -->\n```sh\n" +
		cmds.String() + "```\n\n" + rows.String()
}

// percentOf renders n of runs as a percentage: "0", "<1%", "37%", ">99%",
// "100%" (only 0 and 100% are exact).
func percentOf(n, runs int) string {
	switch {
	case n == 0:
		return "0"
	case n == runs:
		return "100%"
	case 100*n < runs:
		return "<1%"
	case 100*n > 99*runs:
		return ">99%"
	}
	return strconv.Itoa((200*n+runs)/(2*runs)) + "%"
}
