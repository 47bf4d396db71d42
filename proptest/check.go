// Package proptest helps write property tests of election algorithms with
// pgregory.net/rapid: suite-sized checks that still honour rapid's own flags
// and environment, refutation (a property the suite must falsify, to prove
// it has teeth), random fault schedules that rapid shrinks, and a trace sink
// that watches leadership. electsim's own suites use it, and so can an
// algorithm written outside electsim (examples/custom-election). Import it
// from tests only: it depends on package testing. See docs/testing.md,
// "Writing a property suite for a new algorithm".
package proptest

import (
	"flag"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// Marker starts the failure message of every property violation (Fail), so
// Refute can tell a found counterexample from a panic or a harness error.
const Marker = "property violated: "

// refuteShrinkTime bounds how long Refute lets rapid minimise the
// counterexample when neither -rapid.shrinktime nor RAPID_SHRINKTIME is
// given (rapid's own default is 30s, too long for go test ./...).
const refuteShrinkTime = 2 * time.Second

// Fail reports a property violation: the message starts with Marker.
func Fail(t *rapid.T, format string, args ...any) {
	t.Helper()
	t.Fatalf(Marker+format, args...)
}

// user records which of rapid's settings the user gave (flag or environment),
// captured before any suite overrides a flag.
var user struct {
	once                     sync.Once
	checks, shrink, failfile bool
}

func given(flagName, env string) bool {
	if _, ok := os.LookupEnv(env); ok {
		return true
	}
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == flagName })
	return set
}

func captureUser() {
	user.once.Do(func() {
		user.checks = given("rapid.checks", "RAPID_CHECKS")
		user.shrink = given("rapid.shrinktime", "RAPID_SHRINKTIME")
		user.failfile = given("rapid.nofailfile", "RAPID_NOFAILFILE")
	})
}

// override sets a rapid flag for the duration of one check and returns the
// function that restores it. It is a no-op when the user gave the setting.
func override(name, value string, userGave bool) func() {
	f := flag.Lookup(name)
	if userGave || f == nil {
		return func() {}
	}
	old := f.Value.String()
	if err := flag.Set(name, value); err != nil {
		panic(err)
	}
	return func() { _ = flag.Set(name, old) }
}

// checks returns how many test cases a property with suite default def runs:
// rapid's -rapid.checks flag or RAPID_CHECKS when given, else def (both
// divided by 5 under -short, as rapid does).
func checks(def int) int {
	captureUser()
	n := def
	if user.checks {
		n, _ = strconv.Atoi(flag.Lookup("rapid.checks").Value.String())
	}
	if testing.Short() {
		n /= 5
	}
	return n
}

// refuteChecks is how many cases a refutation with default def runs: def,
// even under -short, unless the user gave a size.
func refuteChecks(def int) int {
	if user.checks {
		return checks(def)
	}
	return def
}

// Check runs prop under rapid.Check with def test cases unless the user gave
// -rapid.checks or RAPID_CHECKS. A violation fails t with rapid's shrunk
// counterexample and the seed that reproduces it.
func Check(t *testing.T, def int, prop func(*rapid.T)) {
	t.Helper()
	captureUser()
	defer override("rapid.checks", strconv.Itoa(def), user.checks)()
	rapid.Check(t, prop)
}

// Replay runs prop like Check after replaying the case saved in failfile
// (rapid's -rapid.failfile, set for this call only): a committed fail file
// as a named regression test. rapid skips a file written by another rapid
// version with a log line only, so a regression worth keeping should also
// be built from the case's draws directly (docs/testing.md).
func Replay(t *testing.T, failfile string, def int, prop func(*rapid.T)) {
	t.Helper()
	defer override("rapid.failfile", failfile, false)()
	Check(t, def, prop)
}

// Counterexample is what Refute found.
type Counterexample struct {
	// After is how many test cases passed before the failing one.
	After int
	// Message is rapid's failure report (the violation and how to reproduce it).
	Message string
	// Output is the shrunk test case's log: every draw and the violation.
	Output []string
}

// String renders the counterexample for a test log: how soon it was found,
// how to reproduce it, and the shrunk case (its draws and the violation).
func (c *Counterexample) String() string {
	repro := ""
	for _, line := range strings.Split(c.Message, "\n") {
		if strings.HasPrefix(line, "To reproduce") {
			repro = "; " + strings.TrimPrefix(line, "To ")
		}
	}
	return fmt.Sprintf("counterexample found after %d passing cases%s\nshrunk counterexample:\n  %s",
		c.After, repro, strings.Join(c.Output, "\n  "))
}

// Refute runs prop expecting rapid to falsify it with a Fail within the
// suite's size (def test cases, also under -short, unless -rapid.checks or
// RAPID_CHECKS is given). It passes, logging the shrunk counterexample, only
// if one was found; it fails t if rapid found none, or failed for another
// reason (a panic, an unreproducible failure). Shrinking is bounded by 2 s
// (refuteShrinkTime), and no fail file is written (the failure is the
// expected outcome, not a regression to replay), unless the user gives
// those settings.
func Refute(t *testing.T, def int, prop func(*rapid.T)) *Counterexample {
	t.Helper()
	captureUser()
	n := def
	if testing.Short() {
		n *= 5 // rapid divides by 5 under -short; a refutation keeps its size
	}
	defer override("rapid.checks", strconv.Itoa(n), user.checks)()
	defer override("rapid.shrinktime", refuteShrinkTime.String(), user.shrink)()
	defer override("rapid.nofailfile", "true", user.failfile)()
	c, err := refute(t.Name(), refuteChecks(def), prop)
	if err != nil {
		t.Fatalf("%v", err)
	}
	t.Logf("%s", c)
	return c
}

var afterRe = regexp.MustCompile(`\[rapid\] failed after (\d+) tests`)

// refute runs rapid.Check against a recording TB and interprets the result.
func refute(name string, checks int, prop func(*rapid.T)) (*Counterexample, error) {
	rec := &recordingTB{name: name}
	rapid.Check(rec, prop)
	msg := strings.Join(rec.errors, "\n")
	switch {
	case !rec.failed:
		return nil, fmt.Errorf("rapid found no counterexample in %d checks: the property was expected to be refuted\n%s",
			checks, strings.Join(rec.logs, "\n"))
	case !strings.Contains(msg, Marker):
		return nil, fmt.Errorf("rapid failed, but not with a property violation:\n%s\n%s", msg, strings.Join(rec.logs, "\n"))
	}
	m := afterRe.FindStringSubmatch(msg)
	if m == nil {
		return nil, fmt.Errorf("rapid could not reproduce the violation (nondeterminism?):\n%s", msg)
	}
	after, _ := strconv.Atoi(m[1])
	return &Counterexample{After: after, Message: msg, Output: rec.logs}, nil
}

// recordingTB is a rapid.TB that records failures and logs instead of
// failing a test, so a refutation can invert rapid's verdict.
type recordingTB struct {
	name   string
	failed bool
	errors []string
	logs   []string
}

func (r *recordingTB) Helper()                    {}
func (r *recordingTB) Name() string               { return r.name }
func (r *recordingTB) Logf(f string, args ...any) { r.logs = append(r.logs, fmt.Sprintf(f, args...)) }
func (r *recordingTB) Log(args ...any)            { r.logs = append(r.logs, fmt.Sprint(args...)) }
func (r *recordingTB) Skipf(f string, args ...any) {
	r.Errorf("unexpected skip: "+f, args...)
}
func (r *recordingTB) Skip(args ...any) { r.Error(append([]any{"unexpected skip: "}, args...)...) }
func (r *recordingTB) SkipNow()         { r.Error("unexpected SkipNow") }
func (r *recordingTB) Errorf(f string, args ...any) {
	r.failed = true
	r.errors = append(r.errors, fmt.Sprintf(f, args...))
}
func (r *recordingTB) Error(args ...any) {
	r.failed = true
	r.errors = append(r.errors, fmt.Sprint(args...))
}
func (r *recordingTB) Fatalf(f string, args ...any) { r.Errorf(f, args...) }
func (r *recordingTB) Fatal(args ...any)            { r.Error(args...) }
func (r *recordingTB) FailNow()                     { r.failed = true }
func (r *recordingTB) Fail()                        { r.failed = true }
func (r *recordingTB) Failed() bool                 { return r.failed }
