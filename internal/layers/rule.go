package layers

import (
	"bufio"
	"fmt"
	"io"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Rule is the import rule docs/architecture.md states: each package's layer,
// and the imports of an algorithm's package that the page lists as
// exceptions to its privacy, each with the reason it gives.
type Rule struct {
	// Layer maps a package pattern (a path relative to the module, or
	// "dir/*" for every package directly below dir) to its layer.
	Layer map[string]int
	// Exceptions are "importer -> imported" pairs the page allows although
	// imported is an algorithm's package.
	Exceptions map[string]bool
}

// Begin and end markers of the tables in docs/architecture.md.
const (
	layersBegin     = "<!-- layers:begin -->"
	layersEnd       = "<!-- layers:end -->"
	exceptionsBegin = "<!-- exceptions:begin -->"
	exceptionsEnd   = "<!-- exceptions:end -->"
)

var codeSpan = regexp.MustCompile("`([^`]+)`")

// ParseRule reads the layer table (rows "| layer | `pkg`, `pkg` | ... |")
// and the exceptions table (rows "| `importer` | `imported` | why |") of
// docs/architecture.md.
func ParseRule(r io.Reader) (Rule, error) {
	rule := Rule{Layer: map[string]int{}, Exceptions: map[string]bool{}}
	in := ""
	sc := bufio.NewScanner(r)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		switch text {
		case layersBegin, exceptionsBegin:
			in = text
			continue
		case layersEnd, exceptionsEnd:
			in = ""
			continue
		}
		cells := strings.Split(strings.Trim(text, "|"), "|")
		if in == "" || !strings.HasPrefix(text, "|") || len(cells) < 3 || strings.HasPrefix(strings.TrimSpace(cells[0]), "-") {
			continue
		}
		if in == exceptionsBegin {
			from, to := codeSpan.FindStringSubmatch(cells[0]), codeSpan.FindStringSubmatch(cells[1])
			if from == nil || to == nil || strings.TrimSpace(cells[2]) == "" {
				continue // the header, or a row without its reason
			}
			rule.Exceptions[from[1]+" -> "+to[1]] = true
			continue
		}
		layer, err := strconv.Atoi(strings.TrimSpace(cells[0]))
		if err != nil {
			continue // the header
		}
		pkgs := codeSpan.FindAllStringSubmatch(cells[1], -1)
		if len(pkgs) == 0 {
			return rule, fmt.Errorf("line %d: layer %d names no package", line, layer)
		}
		for _, p := range pkgs {
			if old, dup := rule.Layer[p[1]]; dup {
				return rule, fmt.Errorf("line %d: %s is in layer %d and layer %d", line, p[1], old, layer)
			}
			rule.Layer[p[1]] = layer
		}
	}
	if err := sc.Err(); err != nil {
		return rule, err
	}
	if len(rule.Layer) == 0 {
		return rule, fmt.Errorf("no layer table between %s and %s", layersBegin, layersEnd)
	}
	return rule, nil
}

// LayerOf is pkg's layer: its own row, else its parent's "dir/*" row.
func (r Rule) LayerOf(pkg string) (int, bool) {
	if l, ok := r.Layer[pkg]; ok {
		return l, true
	}
	l, ok := r.Layer[path.Dir(pkg)+"/*"]
	return l, ok
}

// algorithmOf is the algorithm package pkg belongs to ("algorithms/raftelect"
// for itself and anything below it), or "" when pkg is no algorithm's. The
// shared packages below algorithms/ (builtin, internal) are no algorithm.
func algorithmOf(pkg string) string {
	parts := strings.Split(pkg, "/")
	if len(parts) < 2 || parts[0] != "algorithms" || parts[1] == "builtin" || parts[1] == "internal" {
		return ""
	}
	return "algorithms/" + parts[1]
}

// Check judges a package graph (package → the module's packages it
// imports, paths relative to the module) and returns one sentence per
// broken rule, sorted: a package with no layer, an import that does not go
// to a lower layer, and an algorithm named outside it (other than by
// algorithms/builtin, which registers them all, or a listed exception).
func (r Rule) Check(graph map[string][]string) []string {
	var bad []string
	for pkg, imports := range graph {
		from, ok := r.LayerOf(pkg)
		if !ok {
			bad = append(bad, fmt.Sprintf("%s has no layer in docs/architecture.md", pkg))
			continue
		}
		for _, imp := range imports {
			to, ok := r.LayerOf(imp)
			if ok && to >= from {
				bad = append(bad, fmt.Sprintf("%s (layer %d) imports %s (layer %d): imports go to lower layers only", pkg, from, imp, to))
			}
			alg := algorithmOf(imp)
			if alg != "" && algorithmOf(pkg) != alg && pkg != "algorithms/builtin" && !r.Exceptions[pkg+" -> "+imp] {
				bad = append(bad, fmt.Sprintf("%s names the algorithm %s: only the algorithm itself and algorithms/builtin may", pkg, imp))
			}
		}
	}
	slices.Sort(bad)
	return bad
}
