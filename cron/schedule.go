// Package cron is electsim's fenced distributed-cron layer. Every node carries
// the same job table, evaluates schedules on its own wall clock, and fires a
// due slot only while it believes it leads (leader-driven mode, on top of any
// election algorithm) or while it holds a per-job ShedLock-style lock
// (ShedLock mode). A run's side effects are writes to a fenced Resource, whose
// log is the ground truth for what was executed.
package cron

import (
	"fmt"
	"strings"
	"time"

	robfig "github.com/robfig/cron/v3"
)

// Schedule yields a job's slots: the calendar instants at which it is due.
// A slot's identity is its scheduled wall time, so every node names the same
// slot the same way whatever its clock says.
type Schedule interface {
	// Next returns the first slot strictly after t, or the zero time if none.
	Next(t time.Time) time.Time
	// String returns the schedule as written.
	String() string
}

// parser accepts standard five-field expressions, an optional leading seconds
// field, and descriptors such as @daily and @hourly.
var parser = robfig.NewParser(robfig.SecondOptional | robfig.Minute | robfig.Hour |
	robfig.Dom | robfig.Month | robfig.Dow | robfig.Descriptor)

// ParseSchedule parses a cron expression ("0 2 * * *", "*/10 * * * * *",
// "@daily") or a fixed interval ("@every 10s"). Expressions are evaluated in
// UTC unless they carry a CRON_TZ= prefix. Fixed intervals are aligned to the
// Unix epoch, so slots are the same instants on every node.
func ParseSchedule(expr string) (Schedule, error) {
	e := strings.TrimSpace(expr)
	if e == "" {
		return nil, fmt.Errorf("empty schedule")
	}
	if rest, ok := strings.CutPrefix(e, "@every "); ok {
		d, err := time.ParseDuration(strings.TrimSpace(rest))
		if err != nil {
			return nil, fmt.Errorf("schedule %q: %v", expr, err)
		}
		if d < time.Millisecond {
			return nil, fmt.Errorf("schedule %q: interval must be at least 1ms", expr)
		}
		return Every(d), nil
	}
	s, err := parser.Parse(e)
	if err != nil {
		return nil, fmt.Errorf("schedule %q: %v", expr, err)
	}
	return cronSchedule{expr: e, s: s}, nil
}

type cronSchedule struct {
	expr string
	s    robfig.Schedule
}

func (c cronSchedule) Next(t time.Time) time.Time {
	if t.Location() != time.UTC {
		t = t.UTC()
	}
	return c.s.Next(t)
}

func (c cronSchedule) String() string { return c.expr }

// Every returns a fixed-interval schedule with slots at multiples of d since
// the Unix epoch.
func Every(d time.Duration) Schedule { return every(d) }

type every time.Duration

func (e every) Next(t time.Time) time.Time {
	d := int64(e)
	ns := t.UnixNano()
	k := ns / d
	if ns < 0 && ns%d != 0 {
		k--
	}
	return time.Unix(0, (k+1)*d).UTC()
}

func (e every) String() string { return "@every " + time.Duration(e).String() }

// IntervalOf returns the interval of an "@every" schedule, false for a
// cron expression.
func IntervalOf(s Schedule) (time.Duration, bool) {
	e, ok := s.(every)
	return time.Duration(e), ok
}

// SlotsBetween lists the slots of s in (from, to], in order.
func SlotsBetween(s Schedule, from, to time.Time) []time.Time {
	var out []time.Time
	for t := s.Next(from); !t.IsZero() && !t.After(to); t = s.Next(t) {
		out = append(out, t)
	}
	return out
}
