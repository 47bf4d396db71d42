package scenario

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzParse feeds the loader arbitrary bytes and an arbitrary -set
// override (issue 5): it must never panic; every rejection is an Errors
// value whose entries are positioned (Line, Col >= 1) in the file or in the
// override; and every accepted scenario must build for seed 1 (an accepted
// file that cannot build is a check the loader is missing). Run it with
//
//	go test ./scenario -run '^$' -fuzz FuzzParse -fuzztime 60s
//
// The seed corpus is every shipped scenario and every malformed file, with
// and without an override; inputs the fuzzer found are kept in
// testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	files := shippedScenarios(f)
	malformed, err := filepath.Glob(filepath.Join("testdata", "malformed", "*.yaml"))
	require.NoError(f, err)
	files = append(files, malformed...)
	sets := []string{"", "cluster.nodes=7", "algorithm.election_timeout=150ms..155ms", "faults[0].for=5s",
		"faults[+]={at: 5s, crash: leader, for: 1s}", "cron.policy=[fencing]", "network.latency={dist: constant, min: 5ms}"}
	for i, file := range files {
		src, err := os.ReadFile(file)
		require.NoError(f, err)
		f.Add(src, "")
		f.Add(src, sets[i%len(sets)])
	}
	f.Fuzz(func(t *testing.T, src []byte, set string) {
		var overrides []string
		if set != "" {
			overrides = []string{set}
		}
		sc, err := ParseWith("fuzz.yaml", src, overrides)
		if err != nil {
			var es Errors
			require.True(t, errors.As(err, &es), "want Errors, got %T: %v", err, err)
			require.NotEmpty(t, es)
			for _, e := range es {
				require.GreaterOrEqual(t, e.Line, 1, "%v", e)
				require.GreaterOrEqual(t, e.Col, 1, "%v", e)
				require.Contains(t, []string{"fuzz.yaml", SetFile}, e.File, "%v", e)
				require.NotEmpty(t, e.Msg, "%v", e)
			}
			return
		}
		_ = sc.String()
		if sc.Nodes > 16 {
			return // building is cheap, but keep the fuzzer's iterations fast
		}
		r, err := sc.Build(RunOptions{Seed: 1})
		require.NoError(t, err, "an accepted scenario must build")
		require.NotNil(t, r.Injector)
	})
}
