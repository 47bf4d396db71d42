package layers

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The house's size rules (docs/architecture.md, "Sizes"): a function a
// reader can see on one screen, and a command-line package whose files each
// hold one step.
const (
	maxFuncLines      = 100
	maxSimrunFileLine = 400
)

// TestSizes: no non-test function of the module is over maxFuncLines lines
// (from func to its closing brace), and no non-test file of simrun/ is over
// maxSimrunFileLine lines.
func TestSizes(t *testing.T) {
	var bad []string
	walkGo(t, "../..", parser.SkipObjectResolution, func(fset *token.FileSet, f *ast.File, rel string) {
		bad = append(bad, oversize(fset, f, rel)...)
	})
	require.Empty(t, bad)
}

// oversize lists f's functions over maxFuncLines and, under simrun/, the
// file itself when it is over maxSimrunFileLine.
func oversize(fset *token.FileSet, f *ast.File, rel string) []string {
	var bad []string
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		if n := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1; n > maxFuncLines {
			bad = append(bad, rel+": func "+fd.Name.Name+" is "+strconv.Itoa(n)+" lines")
		}
	}
	if strings.HasPrefix(rel, "simrun/") {
		if n := fset.File(f.Pos()).LineCount(); n > maxSimrunFileLine {
			bad = append(bad, rel+" is "+strconv.Itoa(n)+" lines")
		}
	}
	return bad
}

// TestOversizeRefutes: the size check has teeth: a 101-line function and
// a 401-line file of simrun/ are reported, a 100-line function is not.
func TestOversizeRefutes(t *testing.T) {
	src := func(bodyLines int) string {
		return "package p\n\nfunc f() {\n" + strings.Repeat("\t_ = 0\n", bodyLines) + "}\n"
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "x.go", src(98), 0)
	require.NoError(t, err)
	require.Empty(t, oversize(fset, f, "x/x.go"), "100 lines is the limit, not over it")
	f, err = parser.ParseFile(fset, "y.go", src(99), 0)
	require.NoError(t, err)
	require.Equal(t, []string{"x/y.go: func f is 101 lines"}, oversize(fset, f, "x/y.go"))
	f, err = parser.ParseFile(fset, "z.go", "package p\n"+strings.Repeat("\n", 400), 0)
	require.NoError(t, err)
	require.Equal(t, []string{"simrun/z.go is 401 lines"}, oversize(fset, f, "simrun/z.go"))
	require.Empty(t, oversize(fset, f, "checker/z.go"), "the file limit is simrun's")
}
