package scenario

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestModelPagesHaveDifferencesTables: every model page in docs/algorithms
// has a "Differences from the real system(s)" table, and every test or
// step-level script it cites as keeping a row true exists in the
// repository, so a row cannot outlive the test behind it.
func TestModelPagesHaveDifferencesTables(t *testing.T) {
	pages, err := filepath.Glob("../docs/algorithms/*.md")
	require.NoError(t, err)
	require.NotEmpty(t, pages)
	defined := testFuncs(t)
	testRe := regexp.MustCompile("`(Test[A-Za-z0-9_]+)`")
	scriptRe := regexp.MustCompile("`(testdata/[A-Za-z0-9_./-]+\\.txt)`")
	for _, p := range pages {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		doc := string(b)
		i := strings.Index(doc, "## Differences from the real system")
		if !assert.GreaterOrEqual(t, i, 0, "%s: no \"Differences from the real system\" section", p) {
			continue
		}
		sec := doc[i:]
		if j := strings.Index(sec[3:], "\n## "); j >= 0 {
			sec = sec[:j+3]
		}
		assert.Contains(t, sec, "| kept true by |", "%s: the table names the tests that keep each row true", p)
		for _, m := range testRe.FindAllStringSubmatch(sec, -1) {
			assert.True(t, defined[m[1]], "%s cites %s, which no test file defines", p, m[1])
		}
		pkg := strings.TrimSuffix(filepath.Base(p), ".md")
		if pkg == "raft" {
			pkg = "raftelect"
		}
		for _, m := range scriptRe.FindAllStringSubmatch(sec, -1) {
			_, err := os.Stat(filepath.Join("..", "algorithms", pkg, m[1]))
			assert.NoError(t, err, "%s cites %s", p, m[1])
		}
	}
}

// testFuncs lists the Test functions defined in the repository's test files.
func testFuncs(t *testing.T) map[string]bool {
	re := regexp.MustCompile(`(?m)^func (Test[A-Za-z0-9_]+)\(`)
	out := map[string]bool{}
	err := filepath.WalkDir("..", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range re.FindAllStringSubmatch(string(b), -1) {
			out[m[1]] = true
		}
		return nil
	})
	require.NoError(t, err)
	return out
}
