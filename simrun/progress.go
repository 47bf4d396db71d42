package simrun

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/electsim/electsim/reports"
)

// progress reports a sweep's progress on stderr: a bar on a terminal,
// periodic lines otherwise, nothing when quiet. Each report says runs per
// second, the time left (eta) and what was found so far: the runs that did
// not meet the scenario's expectations, and apart from them the runs that
// met them with harmless or expected findings only — 1,000 harmless
// split-brains are not "no findings", nor failures. A study may count its
// own verdict instead (bad, named by badName).
type progress struct {
	w        io.Writer
	name     string // the program's name, the lines' prefix (progName)
	total    int
	n        atomic.Int64
	failed   atomic.Int64 // runs bad judged bad (default: did not meet the expectations)
	harmless atomic.Int64 // runs that met them with harmless findings only
	expected atomic.Int64 // runs that met them with a harmful finding they allow
	// bad, when set, judges a run instead of its expectations; badName
	// names such runs (one, many) and none says there are none.
	bad     func(*reports.RunSummary) bool
	badName [2]string
	none    string
	tty     bool
	quiet   bool
	start   time.Time
	mu      sync.Mutex
	eta     etaEstimator
	last    time.Time
	every   time.Duration
	printed bool
	// base and baseCounts are added to what set reports: the runs of a
	// matrix's earlier scenarios, when each scenario's worker processes
	// count from 0.
	base       int
	baseCounts findingCounts
}

func newProgress(w io.Writer, total int, quiet bool) *progress {
	p := &progress{w: w, name: "simrun", total: total, quiet: quiet || total < 2, start: time.Now(), every: 2 * time.Second}
	if isTerminal(w) {
		p.tty = true
		p.every = 100 * time.Millisecond
	}
	p.last = p.start
	return p
}

// isTerminal reports whether w is a terminal (progress then redraws one
// line in place).
func isTerminal(w io.Writer) bool {
	if u, ok := w.(interface{ Unwrap() io.Writer }); ok { // termsafe.Writer
		w = u.Unwrap()
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// add counts one finished run.
func (p *progress) add(r *reports.RunSummary) {
	n := int(p.n.Add(1))
	bad := !r.OK
	if p.bad != nil {
		bad = p.bad(r)
	}
	switch {
	case bad:
		p.failed.Add(1)
	case p.bad == nil && len(r.Violations) > 0:
		harmful := false
		for _, v := range r.Violations {
			harmful = harmful || !v.Harmless
		}
		if harmful {
			p.expected.Add(1)
		} else {
			p.harmless.Add(1)
		}
	}
	p.show(n, p.counts())
}

// set reports totals counted elsewhere (worker processes' progress lines).
func (p *progress) set(n int, c findingCounts) {
	n += p.base
	c.failed += p.baseCounts.failed
	c.harmless += p.baseCounts.harmless
	c.expected += p.baseCounts.expected
	p.n.Store(int64(n))
	p.failed.Store(int64(c.failed))
	p.harmless.Store(int64(c.harmless))
	p.expected.Store(int64(c.expected))
	p.show(n, c)
}

func (p *progress) counts() findingCounts {
	return findingCounts{failed: int(p.failed.Load()), harmless: int(p.harmless.Load()), expected: int(p.expected.Load())}
}

// show prints the progress if it is due: at most every p.every, and at the end.
func (p *progress) show(n int, c findingCounts) {
	if p.quiet {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	el := now.Sub(p.start).Seconds()
	p.eta.observe(el, n)
	if now.Sub(p.last) < p.every && n < p.total {
		return
	}
	p.last = now
	status := progressStatus(n, p.total, el, p.eta.left(p.total)) + ", " + p.findings(c)
	if p.tty {
		const width = 30
		fill := width * min(n, p.total) / p.total
		fmt.Fprintf(p.w, "\r[%s%s] %s", strings.Repeat("=", fill), strings.Repeat(" ", width-fill), status)
		p.printed = true
		if n == p.total {
			fmt.Fprintln(p.w)
		}
		return
	}
	fmt.Fprintf(p.w, "%s: %s\n", p.name, status)
}

// findingCounts are the runs a progress report counts.
type findingCounts struct{ failed, harmless, expected int }

// findings says what was found so far: "no failing runs (1000 passed with
// harmless findings only)", "3 failing runs", or a study's own verdict
// ("2 runs past the bound").
func (p *progress) findings(c findingCounts) string {
	if p.bad != nil {
		if c.failed == 0 {
			return p.none
		}
		return reports.Plural(c.failed, p.badName[0], p.badName[1])
	}
	s := "no failing runs"
	if c.failed > 0 {
		s = reports.Plural(c.failed, "failing run", "failing runs")
	}
	var ok []string
	if c.harmless > 0 {
		ok = append(ok, fmt.Sprintf("%d passed with harmless findings only", c.harmless))
	}
	if c.expected > 0 {
		ok = append(ok, fmt.Sprintf("%d passed with expected findings", c.expected))
	}
	if len(ok) > 0 {
		s += " (" + strings.Join(ok, ", ") + ")"
	}
	return s
}

// progressStatus is how far a sweep is: "120/1000 runs (12%), 2.0s, 60
// runs/s, ETA 14.7s" after el seconds, with left seconds to go (< 0:
// unknown).
func progressStatus(n, total int, el, left float64) string {
	s := fmt.Sprintf("%d/%d runs (%d%%), %.1fs", n, total, 100*n/total, el)
	if el > 0 && n > 0 {
		s += fmt.Sprintf(", %.0f runs/s", float64(n)/el)
		if n < total && left >= 0 {
			s += ", ETA " + time.Duration(left*float64(time.Second)).Round(100*time.Millisecond).String()
		}
	}
	return s
}

// note prints one line about the sweep between progress reports (a bar's
// line ended first), unless quiet.
func (p *progress) note(line string) {
	if p.quiet {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tty && p.printed {
		fmt.Fprintln(p.w)
	}
	fmt.Fprintf(p.w, "%s: %s\n", p.name, line)
}

// finish ends the bar's line if a sweep stopped early.
func (p *progress) finish() {
	if p.tty && p.printed && int(p.n.Load()) < p.total {
		fmt.Fprintln(p.w)
	}
}
