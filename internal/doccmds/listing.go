package doccmds

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Listing is what one `go test -list . PKGS` printed: each package's
// tests, benchmarks, fuzz targets and examples, by the package as the docs
// write it (./sim). Every ListOnly command of the docs is answered from
// one such listing (ListAll): one go command builds and lists every
// package the docs name, where a command each linked its packages' test
// binaries again (./sim, ./reports and ./algorithms/raftelect are named by
// several).
type Listing map[string][]string

// ListAllCommand is the one command that lists every package of pkgs
// (written as the docs write them), sorted and without repeats.
func ListAllCommand(pkgs []string) string {
	pkgs = slices.Clone(pkgs)
	slices.Sort(pkgs)
	return "go test -list . " + strings.Join(slices.Compact(pkgs), " ")
}

// ParseListing reads the output of ListAllCommand: names, then a line
// "ok  <import path>  <time>" per package. module is the main module's
// path; a package's import path is module + its ./path.
func ParseListing(stdout, module string) Listing {
	out := Listing{}
	var names []string
	for _, line := range strings.Split(stdout, "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) >= 2 && f[0] == "ok":
			pkg := "."
			if p := strings.TrimPrefix(f[1], module); p != f[1] && p != "" {
				pkg = "." + p
			}
			out[pkg] = names
			names = nil
		case len(f) >= 1 && f[0] == "?": // no test files
			names = nil
		case len(f) == 1:
			names = append(names, f[0])
		}
	}
	return out
}

// Check answers a ListOnly command from the listing: the packages of
// pkgs in which pattern (as written, quotes and all) names nothing, and an
// error if pattern is no regular expression or a package was not listed
// (it did not build).
func (l Listing) Check(pattern string, pkgs []string) ([]string, error) {
	re, err := regexp.Compile(unquote(pattern))
	if err != nil {
		return nil, fmt.Errorf("pattern %s: %v", pattern, err)
	}
	var empty []string
	for _, p := range pkgs {
		names, ok := l[p]
		if !ok {
			return nil, fmt.Errorf("%s was not listed (see the listing's output above)", p)
		}
		if !slices.ContainsFunc(names, re.MatchString) {
			empty = append(empty, p)
		}
	}
	return empty, nil
}

// unquote strips the shell quotes around a pattern as the docs write it
// ('^FuzzX$').
func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '\'' || s[0] == '"') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	return s
}
