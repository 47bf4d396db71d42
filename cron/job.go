package cron

import (
	"fmt"
	"time"
)

// Job is one entry of the job table, identical on every node.
type Job struct {
	// Name identifies the job, e.g. "daily-report".
	Name string
	// Schedule is a cron expression or "@every <duration>" (see ParseSchedule).
	Schedule string
	// RunMin and RunMax bound a run's duration; each run draws uniformly from
	// [RunMin, RunMax] using the running node's random stream. Default 1s.
	RunMin, RunMax time.Duration
	// Writes is the number of side-effect writes a run makes, spread evenly
	// over the run, the last at its end. Default 1.
	Writes int
	// RequestsRecovery, under MisfireQuartz, makes a new leader re-run a
	// slot another node had fired but not completed (Quartz's
	// JobDetail.requestsRecovery, default false: clusterRecover drops such
	// runs).
	RequestsRecovery bool

	sched Schedule
}

// Validate parses the schedule and checks the durations.
func (j *Job) Validate() error {
	if j.Name == "" {
		return fmt.Errorf("job without a name")
	}
	s, err := ParseSchedule(j.Schedule)
	if err != nil {
		return fmt.Errorf("job %q: %v", j.Name, err)
	}
	j.sched = s
	if j.RunMin == 0 && j.RunMax == 0 {
		j.RunMin, j.RunMax = time.Second, time.Second
	}
	if j.RunMax == 0 {
		j.RunMax = j.RunMin
	}
	if j.RunMin < 0 || j.RunMax < j.RunMin {
		return fmt.Errorf("job %q: run duration needs 0 <= min <= max, got %v..%v", j.Name, j.RunMin, j.RunMax)
	}
	if j.Writes == 0 {
		j.Writes = 1
	}
	if j.Writes < 0 || j.Writes > 1000 {
		return fmt.Errorf("job %q: writes must be in 1..1000, got %d", j.Name, j.Writes)
	}
	return nil
}

// Sched returns the parsed schedule (after Validate).
func (j *Job) Sched() Schedule { return j.sched }

// Table is the job table shared by all nodes and the resource.
type Table []Job

// Validate validates every job and rejects duplicate names.
func (t Table) Validate() error {
	for i := range t {
		if err := t[i].Validate(); err != nil {
			return err
		}
		for k := 0; k < i; k++ {
			if t[k].Name == t[i].Name {
				return fmt.Errorf("job %q defined twice", t[i].Name)
			}
		}
	}
	return nil
}

// SlotName formats a slot for humans: "daily-report@2026-11-21T02:00:00Z".
func SlotName(job string, slot int64) string {
	return job + "@" + time.Unix(0, slot).UTC().Format(time.RFC3339Nano)
}

// LongestRun is the longest any job of t may run (its RunMax), 0 for an
// empty table.
func (t Table) LongestRun() time.Duration {
	var d time.Duration
	for i := range t {
		d = max(d, t[i].RunMax)
	}
	return d
}
