package scenario

import (
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readerKeys collects, over the round-trip corpus, the keys the reader
// knows at each place it reads a mapping (indexes erased: faults[]).
func readerKeys(t *testing.T) map[string]map[string]bool {
	index := regexp.MustCompile(`\[\d+\]`)
	out := map[string]map[string]bool{}
	for _, f := range roundTripCorpus(t) {
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		_, err = parseWith(f, src, nil, func(path, key string, _ bool) {
			path = index.ReplaceAllString(path, "[]")
			if out[path] == nil {
				out[path] = map[string]bool{}
			}
			out[path][key] = true
		}, ParseOptions{})
		require.NoError(t, err)
	}
	return out
}

func keysOf[T any](fields []field[T]) []string {
	var out []string
	for _, f := range fields {
		out = append(out, f.key)
		out = append(out, f.aliases...)
	}
	sort.Strings(out)
	return out
}

func sorted(m map[string]bool, drop ...string) []string {
	var out []string
	for k := range m {
		if !containsStr(drop, k) {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// TestFaultSchemaMatchesReader: the writer is derived from faultSchema,
// faultCommon, triggerFields and nemesisFields; here the reader's keys at
// each of those mappings are exactly the schema's (plus the aliases it
// lists), so a key the reader accepts cannot be missing from the writer,
// and the writer cannot write a key the reader refuses.
func TestFaultSchemaMatchesReader(t *testing.T) {
	known := readerKeys(t)
	for _, k := range faultSchema {
		if k.kind == "heal" {
			continue // heal: true takes no keys
		}
		got := sorted(known["faults[]."+k.kind], refusedKeys(k.kind)...)
		assert.Equal(t, keysOf(k.fields), got, "faults[].%s: the reader's keys vs the schema's", k.kind)
	}
	assert.Equal(t, keysOf(triggerFields), sorted(known["faults[].after"]), "faults[].after")
	assert.Equal(t, keysOf(nemesisFields), sorted(known["faults[].random"]), "faults[].random")

	// A fault's own level: the common keys, one key per kind, random, and
	// the keys the shorthand forms take beside their kind
	// (partition: isolate, target: leader; crash: leader, wipe_disk: true).
	want := keysOf(faultCommon)
	for _, k := range faultSchema {
		want = append(want, k.kind)
	}
	want = append(want, "random")
	for _, sib := range shorthandSiblings {
		want = append(want, sib)
	}
	sort.Strings(want)
	assert.Equal(t, want, sorted(known["faults[]"]), "faults[]: %s", strings.Join(sorted(known["faults[]"]), " "))
}

// shorthandSiblings are the keys a shorthand fault (partition: isolate,
// crash: leader) takes beside its kind; the writer writes the mapping form.
var shorthandSiblings = []string{"groups", "services", "target", "to", "wipe_disk"}

// refusedKeys are keys the reader knows under a kind only to refuse them
// with a clearer message (refusedOnly).
func refusedKeys(kind string) []string {
	var out []string
	for k := range refusedOnly {
		if rest, ok := strings.CutPrefix(k, "faults[]."+kind+"."); ok {
			out = append(out, rest)
		}
	}
	return out
}
