package scenario

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/registry"
)

// TestDocsCoverTheGrammar keeps docs/scenarios.md in step with the loader:
// every algorithm has a table with a row for each of its parameters (the
// registry's descriptors), and every fault kind, target, trigger event,
// nemesis kind and check name the loader accepts is documented.
func TestDocsCoverTheGrammar(t *testing.T) {
	src, err := os.ReadFile("../docs/scenarios.md")
	require.NoError(t, err)
	doc := string(src)
	for _, a := range registry.Default.All() {
		head := "### `" + a.Name + "`:"
		i := strings.Index(doc, head)
		require.GreaterOrEqual(t, i, 0, "no section %q", head)
		section := doc[i+len(head):]
		if j := strings.Index(section, "\n#"); j >= 0 {
			section = section[:j]
		}
		rows := strings.Count(section, "\n| `")
		assert.Equal(t, len(a.Params), rows, "%s: table rows vs parameters", a.Name)
		for _, p := range a.Params {
			assert.Contains(t, section, "| `"+p.Key+"` |", "%s: parameter %s", a.Name, p.Key)
		}
	}
	var words []string
	words = append(words, faultKinds...)
	words = append(words, targetKinds...)
	words = append(words, checkNames...)
	words = append(words, "elected", "stepped_down", "renew", "acquired", "expired", "job_started", "job_finished",
		"store_unavailable", "store_failover", "groups", "isolate", "majority_minority", "bridge", "one_way")
	for _, w := range words {
		assert.Contains(t, doc, "`"+w+"`", "docs/scenarios.md does not mention %s", w)
	}
	for _, f := range shippedScenarios(t) {
		assert.Contains(t, doc, "| `"+filepath.Base(f)+"` |", "shipped scenario %s is not in the table", f)
	}
}

// TestCatalogueListsEveryScenario keeps scenarios/README.md, the page a
// newcomer opens first, in step with the files: one row per shipped
// scenario, with the file's own description.
func TestCatalogueListsEveryScenario(t *testing.T) {
	src, err := os.ReadFile(shipped("README.md"))
	require.NoError(t, err)
	page := string(src)
	files := shippedScenarios(t)
	require.Equal(t, len(files), strings.Count(page, "\n| [`"), "rows vs shipped scenarios")
	for _, f := range files {
		sc, err := Load(f)
		require.NoError(t, err)
		base := filepath.Base(f)
		assert.Contains(t, page, "| [`"+base+"`]("+base+") | "+sc.Description+" |", "scenarios/README.md row for %s", base)
	}
}
