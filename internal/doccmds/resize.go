package doccmds

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Sizes are the caps a documented command runs under. The zero value (Full)
// runs every command at its documented size.
type Sizes struct {
	Full     bool   // no caps: ELECTSIM_DOC_FULL=1
	Seeds    int    // -seeds above it is lowered to it; a -matrix gets it
	FuzzTime string // every -fuzztime becomes it; "" runs the seed corpus only
}

var (
	seedsRE    = regexp.MustCompile(`(^|\s)-seeds[ =](\d+)`)
	fuzztimeRE = regexp.MustCompile(`(^|\s)-fuzztime[ =]\S+`)
	fuzzRunRE  = regexp.MustCompile(`(^|\s)-run[ =]'\^\$'\s+-fuzz[ =](\w+)\s+-fuzztime[ =]\S+(\s+-fuzzminimizetime[ =]\S+)?`)
	rapidRE    = regexp.MustCompile(`(^|\s)RAPID_CHECKS=\d+\s+`)
	benchRE    = regexp.MustCompile(`(^|\s)-(test\.)?bench[ =]`)
	goRunRE    = regexp.MustCompile(`(^|&&\s*|\s)go run \./cmd/simrun(\s|$)`)
	goTestRE   = regexp.MustCompile(`(^|\s)go test\s`)
)

// Rewrite returns the command the test runs for a documented one, and
// whether it differs. The rules, documented in docs/testing.md:
//
//   - `go run ./cmd/simrun` is the `simrun` on PATH, built once by the test;
//   - `go test` gets -count=1 (a cached result proves nothing);
//   - a `go test ./...` in the repository root is `go build ./...` (under
//     s.Full `go vet ./...`, which type-checks the tests too: minutes on a
//     cold cache, and the go test ./... running this test compiles them
//     anyway): the whole
//     suite is CI's own command (.ci/run), and running it from one of its
//     tests would run that test again; vet compiles every package and test;
//   - /tmp/ is the test's own temporary directory.
//
// Unless s.Full: -seeds is at most s.Seeds and a -matrix without -seeds
// gets -seeds s.Seeds; RAPID_CHECKS=N is dropped, so property suites run at
// their default sizes (the `go test ./...` sizes, which every refutation
// and rare-event property is tuned for); a fuzzing command runs its
// target over the seed corpus and the found inputs (`-run '^FuzzX$'`, an
// ordinary test build) unless s.FuzzTime is set, which then replaces every
// -fuzztime (the coverage-instrumented build fuzzing needs takes 65-100 s
// per package on a cold cache); a benchmark without -benchtime runs once
// (-benchtime 1x).
func Rewrite(c Command, s Sizes, tmp string) string {
	t := c.Text
	t = goRunRE.ReplaceAllString(t, "${1}simrun$2")
	t = strings.ReplaceAll(t, "/tmp/", tmp+"/")
	if goTestRE.MatchString(t) {
		if c.Dir == "." && strings.Contains(t, "./...") {
			verb := "${1}go build "
			if s.Full {
				verb = "${1}go vet "
			}
			t = goTestRE.ReplaceAllString(t, verb)
			t = rapidRE.ReplaceAllString(t, "$1")
			t = strings.ReplaceAll(t, " -count=1", "")
		} else if !strings.Contains(t, "-count") {
			t = goTestRE.ReplaceAllString(t, "${1}go test -count=1 ")
		}
	}
	if s.Full {
		return t
	}
	t = seedsRE.ReplaceAllStringFunc(t, func(m string) string {
		sub := seedsRE.FindStringSubmatch(m)
		if n, _ := strconv.Atoi(sub[2]); n > s.Seeds {
			return fmt.Sprintf("%s-seeds %d", sub[1], s.Seeds)
		}
		return m
	})
	if strings.Contains(t, "simrun -matrix") && !seedsRE.MatchString(t) {
		t += fmt.Sprintf(" -seeds %d", s.Seeds)
	}
	t = rapidRE.ReplaceAllString(t, "$1")
	if s.FuzzTime == "" {
		t = fuzzRunRE.ReplaceAllString(t, "${1}-run '^${2}$$'")
	} else {
		t = fuzztimeRE.ReplaceAllString(t, "${1}-fuzztime "+s.FuzzTime)
	}
	if benchRE.MatchString(t) && !strings.Contains(t, "benchtime") {
		t = benchRE.ReplaceAllStringFunc(t, func(m string) string {
			sub := benchRE.FindStringSubmatch(m)
			return sub[1] + "-" + sub[2] + "benchtime 1x -" + sub[2] + "bench "
		})
	}
	return t
}
