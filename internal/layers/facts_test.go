package layers

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// positional lists the selectors .A, .B and .C in src: the positional
// arguments of a sim.Record or sim.Effect, which the checker reads by name
// (sim/factfields.go) so that "execution A of slot B of job index C" is
// written once.
func positional(fset *token.FileSet, f *ast.File) []string {
	var found []string
	ast.Inspect(f, func(n ast.Node) bool {
		if s, ok := n.(*ast.SelectorExpr); ok {
			switch s.Sel.Name {
			case "A", "B", "C":
				found = append(found, fset.Position(s.Pos()).String()+": ."+s.Sel.Name)
			}
		}
		return true
	})
	return found
}

// TestCheckerReadsFactsByName: no non-test file of checker/ reads a
// record's positional A, B or C.
func TestCheckerReadsFactsByName(t *testing.T) {
	files, err := filepath.Glob("../../checker/*.go")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	fset := token.NewFileSet()
	var bad []string
	for _, p := range files {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		require.NoError(t, err)
		bad = append(bad, positional(fset, f)...)
	}
	require.Empty(t, bad, "read them through sim.Record's accessors (Exec, Run, Lease, ProtocolState, ...)")
}

// TestPositionalRefutes: the check sees a positional read.
func TestPositionalRefutes(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "x.go", "package p\nfunc f(r struct{ A, C int64 }) int64 { return r.A + r.C }\n", 0)
	require.NoError(t, err)
	require.Equal(t, []string{"x.go:2:47: .A", "x.go:2:53: .C"}, positional(fset, f))
}
