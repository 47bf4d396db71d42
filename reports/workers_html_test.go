package reports

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A finding of a slot run twice shows its run's executions per worker, so
// a reviewer sees why: the worker that lost its message to the visibility
// timeout beside the one that took it next. Other findings do not, and
// the table is capped.
func TestReportShowsExecutionsPerWorker(t *testing.T) {
	s := synthAll(1, 3, "raft")
	s.Runs[0].OK = false
	s.Runs[0].Violations = []ViolationSummary{
		{Kind: "duplicate_execution", AtMs: 71000, Details: "report@02:00 was written by 2 executions", Explanation: "t=60.1s w2 started · t=65.1s the queue delivered the message again → duplicate execution"},
		{Kind: "split_brain", AtMs: 1000, Details: "n1 and n2 led at once"}}
	s.Runs[0].Workers = []WorkerSummary{{Node: "w1", Taken: 1, Heartbeats: 3, Acked: 1, Completed: 1},
		{Node: "w2", Taken: 4, Heartbeats: 11, Acked: 4, Redelivered: 1, Completed: 4}}
	s.Runs[1].Violations = []ViolationSummary{{Kind: "duplicate_execution", AtMs: 5000, Details: "another"}}
	for i := range 40 {
		s.Runs[1].Workers = append(s.Runs[1].Workers, WorkerSummary{Node: fmt.Sprintf("w%d", i+1), Taken: 1})
	}
	s.Runs[1].WorkersOmitted = 3
	s.Aggregate()
	html, _ := writeReport(t, s, nil, HTMLExtras{})
	assertHas(t, html, "Executions per worker in this run")
	assertHas(t, html, `<tr><td class="l">w1</td><td>1</td><td>3</td><td>1</td><td>0</td><td>1</td><td>0</td></tr>`)
	assertHas(t, html, `<tr><td class="l">w2</td><td>4</td><td>11</td><td>4</td><td>1</td><td>4</td><td>0</td></tr>`)
	// Seed 2's 40 workers (and 3 the checker left out) are cut to maxWorkersShown.
	assertHas(t, html, fmt.Sprintf("… and %d more workers.", 40-maxWorkersShown+3))
	assertHasNot(t, html, fmt.Sprintf(`<td class="l">w%d</td>`, maxWorkersShown+1))
	// One table per duplicate_execution finding, none for the split-brain.
	assert.Equal(t, 2, strings.Count(html, `<table class="workers">`))
}
