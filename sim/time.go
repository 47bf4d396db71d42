// Package sim is electsim's deterministic discrete-event engine: virtual true
// time, an allocation-free event queue, seeded random streams, a simulated
// network, two clocks per node, process pauses, crashes with explicit
// persistence, observations of leadership beliefs, and a hashed typed trace.
//
// Nothing in this package reads the host's clock, starts goroutines or uses
// global randomness: the same Config and seed give a byte-identical trace on any
// machine and any GOMAXPROCS. See docs/engine.md for the semantics.
package sim

import (
	"strconv"
	"time"
)

// Time is true simulated time: nanoseconds since the run started. It is the
// time of the simulated universe, which no node can read directly; nodes read
// their own (possibly drifting or stepped) clocks through Env.
type Time int64

// Never is a Time later than any event.
const Never Time = 1<<63 - 1

// Add returns t+d.
func (t Time) Add(d time.Duration) Time { return t + Time(d) }

// Sub returns the duration t-u.
func (t Time) Sub(u Time) time.Duration { return time.Duration(t - u) }

// Duration returns t as a duration since the run started.
func (t Time) Duration() time.Duration { return time.Duration(t) }

// String formats t as seconds with millisecond precision, e.g. "12.300s".
func (t Time) String() string {
	return string(AppendSeconds(nil, int64(t)))
}

// AppendSeconds appends ns formatted as seconds with exactly three decimals
// ("12.300s"), the form used in explanations and human output.
func AppendSeconds(b []byte, ns int64) []byte {
	if ns < 0 {
		b = append(b, '-')
		ns = -ns
	}
	ms := ns / int64(time.Millisecond)
	b = strconv.AppendInt(b, ms/1000, 10)
	b = append(b, '.')
	frac := ms % 1000
	if frac < 100 {
		b = append(b, '0')
	}
	if frac < 10 {
		b = append(b, '0')
	}
	b = strconv.AppendInt(b, frac, 10)
	return append(b, 's')
}
