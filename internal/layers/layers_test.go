package layers

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const module = "github.com/electsim/electsim"

// walkGo calls visit with every non-test Go file of the module (every build
// tag: the rules hold on every platform), parsed with mode, and its path
// relative to the module. Folders with their own go.mod (the example module)
// and testdata are not the module's.
func walkGo(t *testing.T, root string, mode parser.Mode, visit func(fset *token.FileSet, f *ast.File, rel string)) {
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if p != root && (name == "testdata" || strings.HasPrefix(name, ".") || fileExists(filepath.Join(p, "go.mod"))) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, mode)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		visit(fset, f, filepath.ToSlash(rel))
		return nil
	})
	require.NoError(t, err)
}

// moduleGraph returns each package's imports of the module's own packages.
func moduleGraph(t *testing.T, root string) map[string][]string {
	graph := map[string][]string{}
	walkGo(t, root, parser.ImportsOnly, func(_ *token.FileSet, f *ast.File, rel string) {
		pkg := path.Dir(rel)
		if _, ok := graph[pkg]; !ok {
			graph[pkg] = nil
		}
		for _, s := range f.Imports {
			imp, err := strconv.Unquote(s.Path.Value)
			require.NoError(t, err)
			if own, ok := strings.CutPrefix(imp, module+"/"); ok {
				graph[pkg] = append(graph[pkg], own)
			}
		}
	})
	return graph
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func loadRule(t *testing.T) Rule {
	f, err := os.Open("../../docs/architecture.md")
	require.NoError(t, err)
	defer f.Close()
	rule, err := ParseRule(f)
	require.NoError(t, err)
	return rule
}

// TestImportsFollowTheLayers: every package of the module has a layer in
// docs/architecture.md and imports only lower layers; no package outside an
// algorithm names it.
func TestImportsFollowTheLayers(t *testing.T) {
	rule := loadRule(t)
	graph := moduleGraph(t, "../..")
	require.Contains(t, graph, "sim", "the walk must see the module")
	require.Empty(t, rule.Check(graph))
	for pattern := range rule.Layer {
		found := false
		for pkg := range graph {
			found = found || pkg == pattern || strings.HasSuffix(pattern, "/*") && filepath.ToSlash(filepath.Dir(pkg))+"/*" == pattern
		}
		require.True(t, found, "docs/architecture.md lists %s, which is no package of the module", pattern)
	}
}

// TestCheckRefutes: the check has teeth. An import upward, one within a
// layer, a package the table forgot and an algorithm named by another
// package are each reported.
func TestCheckRefutes(t *testing.T) {
	rule := loadRule(t)
	for name, tc := range map[string]struct {
		graph map[string][]string
		want  string
	}{
		"upward":          {map[string][]string{"sim": {"checker"}}, "sim (layer 0) imports checker"},
		"same layer":      {map[string][]string{"checker": {"checker"}}, "imports go to lower layers only"},
		"no layer":        {map[string][]string{"newpkg": {"sim"}}, "newpkg has no layer"},
		"algorithm named": {map[string][]string{"checker": {"algorithms/raftelect"}}, "checker names the algorithm algorithms/raftelect"},
	} {
		bad := rule.Check(tc.graph)
		require.NotEmpty(t, bad, name)
		require.Contains(t, strings.Join(bad, "\n"), tc.want, name)
	}
	require.Empty(t, rule.Check(map[string][]string{"checker": {"sim", "cron"}}), "a lawful graph passes")
}

// TestParseRuleRefusesAmbiguity: a package in two layers, or a page with no
// table, is an error rather than a silently weaker rule.
func TestParseRuleRefusesAmbiguity(t *testing.T) {
	_, err := ParseRule(strings.NewReader(layersBegin + "\n| 0 | `sim` | x |\n| 1 | `sim` | y |\n" + layersEnd))
	require.ErrorContains(t, err, "sim is in layer 0 and layer 1")
	_, err = ParseRule(strings.NewReader("no table"))
	require.ErrorContains(t, err, "no layer table")
}
