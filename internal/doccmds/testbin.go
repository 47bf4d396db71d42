package doccmds

import (
	"strings"
)

// TestRun is a `go test` command taken apart to run each package's test
// binary directly: built once in the working tree (where the build cache
// of the surrounding `go test ./...` has its compiles) and run in the
// copy's package directory (where it may write, e.g. -rewrite's golden
// files), as `go test` runs a test binary in its package's directory.
type TestRun struct {
	// Env is the command's leading VAR=value assignments, as written.
	Env string
	// Pkgs are the packages, as written (./algorithms/raftelect).
	Pkgs []string
	// Args are the test binary's arguments: go test's test flags with
	// their -test. prefix (-run X is -test.run X), the package's own
	// flags (-rewrite, -rapid.seed=N) as written.
	Args []string
}

// testFlags are the go test flags that go to the test binary as -test.X,
// and whether each takes a value.
var testFlags = map[string]bool{"run": true, "skip": true, "bench": true, "benchtime": true, "count": true, "cpu": true,
	"parallel": true, "timeout": true, "shuffle": true, "list": true, "fullpath": false, "v": false, "short": false,
	"failfast": false, "benchmem": false}

// goFlags are the flags of the go command itself (build and output
// flags): a command with one is run by go test as written.
var goFlags = map[string]bool{"a": true, "n": true, "x": true, "p": true, "race": true, "msan": true, "asan": true, "cover": true,
	"covermode": true, "coverpkg": true, "coverprofile": true, "tags": true, "ldflags": true, "gcflags": true, "asmflags": true,
	"trimpath": true, "mod": true, "modfile": true, "overlay": true, "pgo": true, "buildvcs": true, "buildmode": true,
	"compiler": true, "installsuffix": true, "linkshared": true, "pkgdir": true, "toolexec": true, "work": true,
	"json": true, "c": true, "o": true, "exec": true, "vet": true, "fuzz": true, "fuzztime": true, "fuzzminimizetime": true,
	"cpuprofile": true, "memprofile": true, "blockprofile": true, "mutexprofile": true, "trace": true, "outputdir": true}

// SplitTest takes a single `go test` command apart (TestRun): ok is false
// for anything else, for a command with a go command flag (a build flag,
// -json, -c, fuzzing, profiles), and for one that names no package or a
// package pattern (./...).
func SplitTest(text string) (TestRun, bool) {
	if strings.ContainsAny(text, "&|;><`()") {
		return TestRun{}, false
	}
	rest := envRE.ReplaceAllString(text, "")
	r := TestRun{Env: strings.TrimSpace(text[:len(text)-len(rest)])}
	f := strings.Fields(rest)
	if len(f) < 3 || f[0] != "go" || f[1] != "test" {
		return TestRun{}, false
	}
	for i := 2; i < len(f); i++ {
		a := f[i]
		if !strings.HasPrefix(a, "-") {
			if a != "." && !strings.HasPrefix(a, "./") || strings.Contains(a, "...") {
				return TestRun{}, false // a value where none belongs, or a pattern
			}
			r.Pkgs = append(r.Pkgs, a)
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		name = strings.TrimPrefix(name, "test.")
		if goFlags[name] {
			return TestRun{}, false
		}
		takes, known := testFlags[name]
		if !known {
			// The package's own flag, as written; a value follows it
			// unless it is boolean (-rewrite) or joined (-rapid.seed=1).
			r.Args = append(r.Args, a)
			if !hasValue && i+1 < len(f) && !strings.HasPrefix(f[i+1], "-") && f[i+1] != "." && !strings.HasPrefix(f[i+1], "./") {
				i++
				r.Args = append(r.Args, f[i])
			}
			continue
		}
		r.Args = append(r.Args, "-test."+name)
		switch {
		case hasValue:
			r.Args[len(r.Args)-1] += "=" + value
		case takes && i+1 < len(f):
			i++
			r.Args = append(r.Args, f[i])
		}
	}
	if len(r.Pkgs) == 0 {
		return TestRun{}, false
	}
	return r, true
}
