package proptest

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// There is one nightly recipe, docs/testing.md's ("Sizes"): the README
// points to it rather than giving sizes of its own, and it runs every
// package of the repository that has property suites.
func TestOneNightlyRecipe(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	require.NoError(t, err)
	assert.NotContains(t, string(readme), "RAPID_CHECKS", "README.md gives nightly sizes of its own")
	assert.Contains(t, string(readme), "(docs/testing.md#sizes-default-nightly-reproduction)", "README.md points to the nightly recipe")

	doc, err := os.ReadFile(filepath.Join("..", "docs", "testing.md"))
	require.NoError(t, err)
	m := regexp.MustCompile("(?s)\\*\\*Nightly\\*\\*[^\\n]*\\n\\n```sh\\n(.*?)```").FindSubmatch(doc)
	require.NotNil(t, m, "docs/testing.md's nightly recipe (a sh block after **Nightly**)")
	recipe := strings.Fields(strings.ReplaceAll(string(m[1]), "\\\n", " "))
	var pkgs []string
	require.NoError(t, filepath.WalkDir("..", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "examples" || strings.HasPrefix(d.Name(), ".") && d.Name() != "..") {
			return filepath.SkipDir // other modules, and git's files
		}
		if d.Name() == "property_test.go" {
			rel, err := filepath.Rel("..", filepath.Dir(p))
			pkgs = append(pkgs, "./"+filepath.ToSlash(rel))
			return err
		}
		return nil
	}))
	require.NotEmpty(t, pkgs)
	for _, p := range pkgs {
		assert.Contains(t, recipe, p, "docs/testing.md's nightly recipe runs %s's property suites", p)
	}
}
