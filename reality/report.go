package reality

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// What a client or the harness reports. A client reports what its
// application sees; the harness reports what it did to the processes.
type What uint8

// The reports.
const (
	// Acquired: the client's lock call succeeded; the application acts as
	// leader from now on.
	Acquired What = iota + 1
	// Extended: a renewal succeeded.
	Extended
	// Lost: a renewal failed (refused, or an error); the application stops
	// acting as leader.
	Lost
	// Acting: the application did a unit of leader work (once a renewal
	// period while it believes it holds the lock).
	Acting
	// Paused and Resumed: the harness sent SIGSTOP, SIGCONT.
	Paused
	Resumed
	// Crashed: the harness sent SIGKILL. Restarted: it started a new
	// client process for the same candidate.
	Crashed
	Restarted
	// Cut and Healed: the harness cut the client off every server through
	// its proxies, and restored them.
	Cut
	Healed
)

var whatNames = [...]string{"", "acquired", "extended", "lost", "acting", "paused", "resumed", "crashed", "restarted", "cut", "healed"}

// String is the report's name on the wire.
func (w What) String() string {
	if int(w) < len(whatNames) && w > 0 {
		return whatNames[w]
	}
	return fmt.Sprintf("what(%d)", uint8(w))
}

// Report is one stamped report about candidate Node.
type Report struct {
	// Mono is the machine's monotonic clock (Mono) when it happened.
	Mono time.Duration
	Node int
	What What
}

// FormatLine is a client's report as it writes it on its standard output:
// "<monotonic ns> <what>". The harness knows which client wrote it.
func FormatLine(mono time.Duration, w What) string {
	return strconv.FormatInt(int64(mono), 10) + " " + w.String()
}

// ParseLine reads a line written by FormatLine, for candidate node. Only
// a client's own reports (acquired, extended, lost, acting) are accepted:
// faults are the harness's to report.
func ParseLine(node int, line string) (Report, error) {
	f := strings.Fields(line)
	if len(f) != 2 {
		return Report{}, fmt.Errorf("report %q: want \"<monotonic ns> <what>\"", line)
	}
	ns, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil || ns < 0 {
		return Report{}, fmt.Errorf("report %q: bad monotonic time", line)
	}
	for w := Acquired; w <= Acting; w++ {
		if f[1] == w.String() {
			return Report{Mono: time.Duration(ns), Node: node, What: w}, nil
		}
	}
	return Report{}, fmt.Errorf("report %q: unknown %q (acquired, extended, lost, acting)", line, f[1])
}
