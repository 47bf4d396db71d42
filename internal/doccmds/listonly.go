package doccmds

import (
	"regexp"
	"strings"
)

var (
	runFlagRE   = regexp.MustCompile(`(?:^|\s)-(?:test\.)?run[ =]('[^']*'|"[^"]*"|\S+)`)
	benchFlagRE = regexp.MustCompile(`(?:^|\s)-(?:test\.)?bench[ =]('[^']*'|"[^"]*"|\S+)`)
)

// boolFlags are the go test flags that take no value.
var boolFlags = map[string]bool{"v": true, "benchmem": true, "short": true, "race": true, "json": true, "failfast": true, "trimpath": true, "cover": true}

// writes are the go test flags whose command makes a file (a test binary,
// a profile): such a command runs as documented.
var writes = map[string]bool{"c": true, "o": true, "cpuprofile": true, "memprofile": true, "blockprofile": true, "mutexprofile": true,
	"coverprofile": true, "trace": true, "outputdir": true, "json": true}

// ListOnly returns, for a read-only `go test` of the main module (one that
// would run in the working tree: inPlace), the command that lists the tests
// it names instead of running them: `go test -list PATTERN PKGS`, PATTERN
// its -bench pattern for a benchmark, else its -run pattern, else every
// test. `go test ./...` runs those tests itself, at the same default sizes
// (RAPID_CHECKS is dropped, fuzz targets run their corpus, benchmarks once),
// so running them again from the doc test only doubled the suite's time;
// the list still proves the packages build and the pattern names a test
// (docs/testing.md, "Sizes"). ok is false for any other command.
func ListOnly(text string) (string, bool) {
	env, pattern, pkgs, ok := listParts(text)
	if !ok {
		return "", false
	}
	return env + "go test -list " + pattern + " " + strings.Join(pkgs, " "), true
}

// listParts takes a read-only go test apart for ListOnly: its leading
// VAR=value assignments, the pattern it names (as written, quotes and
// all) and its packages.
func listParts(text string) (env, pattern string, pkgs []string, ok bool) {
	rest := envRE.ReplaceAllString(text, "")
	env = text[:len(text)-len(rest)]
	f := strings.Fields(rest)
	if len(f) < 3 || f[0] != "go" || f[1] != "test" {
		return "", "", nil, false
	}
	pattern = "."
	if m := runFlagRE.FindStringSubmatch(rest); m != nil {
		pattern = m[1]
	}
	if m := benchFlagRE.FindStringSubmatch(rest); m != nil {
		pattern = m[1]
	}
	for i := 2; i < len(f); i++ {
		a := f[i]
		if writes[strings.SplitN(strings.TrimPrefix(strings.TrimPrefix(a, "-"), "test."), "=", 2)[0]] && strings.HasPrefix(a, "-") {
			return "", "", nil, false // it builds or writes something a later command uses
		}
		switch {
		case strings.HasPrefix(a, "-") && !strings.Contains(a, "=") && !boolFlags[strings.TrimPrefix(strings.TrimPrefix(a, "-"), "test.")]:
			i++ // the flag's value
		case strings.HasPrefix(a, "./") || a == ".":
			pkgs = append(pkgs, a)
		}
	}
	if len(pkgs) == 0 {
		return "", "", nil, false
	}
	return env, pattern, pkgs, true
}

// Listed checks the output of a ListOnly command: every package listed
// at least one name. It returns the packages that listed none.
func Listed(stdout string) []string {
	var empty []string
	names := 0
	for _, line := range strings.Split(stdout, "\n") {
		switch {
		case strings.HasPrefix(line, "ok ") || strings.HasPrefix(line, "ok\t"):
			if names == 0 {
				f := strings.Fields(line)
				if len(f) >= 2 {
					empty = append(empty, f[1])
				}
			}
			names = 0
		case strings.HasPrefix(line, "?"): // a package without test files
			names = 0
		case strings.TrimSpace(line) != "":
			names++
		}
	}
	return empty
}
