package simrun

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/registry"
)

// simrunAs runs the command named prog in-process and returns its exit
// status and output.
func simrunAs(prog string, args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := runAs(prog, args, &out, &errb)
	return code, out.String(), errb.String()
}

// bullyPartition is a shipped scenario whose bully runs have two leaders.
const bullyPartition = "../scenarios/bully-partition.yaml"

// A program built on Main prints its own name wherever simrun prints a
// command to run or starts an error line: replay lines (in the output, the
// summary, the report and repro.yaml), the shrunk line, usage and errors.
func TestCommandsNameTheProgram(t *testing.T) {
	skipUnderRace(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "o")
	// A real failure, so that it is shrunk (a missing expected finding is
	// not): bully's split-brain with nothing allowed, and an answer
	// timeout below a round trip, so that no contract excuses it (the
	// synchronous model does not hold: docs/algorithms/bully.md).
	code, stdout, stderr := simrunAs("my-sim", "-scenario", bullyPartition, "-set", "expect.allow=[]", "-set", "expect.violations=[]",
		"-set", "algorithm.answer_timeout=1ms", "-shrink-time", "5s", "-out", out)
	require.Equal(t, exitViolation, code, stderr)
	assert.Contains(t, stdout, "replay: my-sim -scenario "+bullyPartition)
	assert.Contains(t, stdout, ": my-sim -scenario "+filepath.Join(out, "repro.yaml"))
	for _, f := range []string{"summary.json", "report.html", "repro.yaml"} {
		b, err := os.ReadFile(filepath.Join(out, f))
		require.NoError(t, err)
		assert.Contains(t, string(b), "my-sim -scenario", f)
		assert.NotRegexp(t, `simrun -(scenario|seed)`, string(b), f)
	}
	assert.NotContains(t, stdout, "simrun -scenario")
	// Progress and notes go by the program's name too (issue 38 point 10:
	// they said "simrun:" and "hunt:").
	assert.Contains(t, stderr, "my-sim: bully-partition: ")
	assert.Contains(t, stderr, "my-sim: shrinking seed ")
	assert.NotRegexp(t, `(?m)^(simrun|hunt)[: ]`, stderr)
	code, _, stderr = simrunAs("my-sim", "hunt", "-algo", "bully", "-set", "algorithm.answer_timeout=1ms", "-checks", "election_safety",
		"-runs", "20", "-workers", "1", "-shrink-time", "2s", "-out", filepath.Join(dir, "h"))
	require.Equal(t, exitViolation, code, stderr)
	assert.Contains(t, stderr, "my-sim hunt: shrinking seed ")
	assert.NotRegexp(t, `(?m)^(simrun|hunt)[: ]`, stderr)

	// Errors, usage and hints.
	bad := filepath.Join(dir, "bad.yaml")
	src, err := os.ReadFile(partition)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(bad, regexp.MustCompile(`name: raft`).ReplaceAll(src, []byte("name: buggy")), 0o644))
	code, _, stderr = simrunAs("my-sim", "-scenario", bad)
	assert.Equal(t, exitUsage, code)
	assert.Regexp(t, `^my-sim: .*"buggy" is not one of`, stderr)
	code, _, stderr = simrunAs("my-sim")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "try: my-sim -scenario scenarios/partition.yaml")
	for _, args := range [][]string{{"-h"}, {"merge", "-h"}, {"margin", "-h"}, {"list", "-h"}, {"help", "list"}} {
		code, stdout, _ = simrunAs("my-sim", args...)
		assert.Equal(t, exitOK, code, args)
		assert.True(t, strings.HasPrefix(stdout, "usage: my-sim "), "%v: %q", args, stdout)
		assert.NotContains(t, stdout, "simrun ", args)
	}
	code, _, stderr = simrunAs("my-sim", "merge")
	assert.Equal(t, exitUsage, code)
	assert.True(t, strings.HasPrefix(stderr, "my-sim merge: "), stderr)
	code, _, stderr = simrunAs("my-sim", "margin", "-scenario", partition)
	assert.Equal(t, exitUsage, code)
	assert.True(t, strings.HasPrefix(stderr, "my-sim margin: "), stderr)
}

// Main goes by the running executable's base name, made safe to print as
// a command; cmd/simrun names itself.
func TestProgramName(t *testing.T) {
	for in, want := range map[string]string{
		"/usr/local/bin/custom-election": "custom-election",
		"bin/custom.EXE":                 "custom",
		"./simrun":                       "simrun",
		"my sim":                         "simrun",
		"-x":                             "simrun",
		"":                               "simrun",
		"/":                              "simrun",
		"sim$(rm -rf)":                   "simrun",
		"simrun.test":                    "simrun.test",
	} {
		assert.Equal(t, want, cleanProgramName(in), "%q", in)
	}
	saved := os.Args
	t.Cleanup(func() { os.Args = saved })
	os.Args = []string{"/tmp/go-build1/b001/exe/custom-election", "-h"}
	assert.Equal(t, "custom-election", programName())
	os.Args = nil
	assert.Equal(t, "simrun", programName())
}

// simrun -h lists every command; help COMMAND prints what COMMAND -h
// prints; -version prints the module version.
func TestHelpListsEveryCommand(t *testing.T) {
	code, usage, stderr := simrun(t, "-h")
	require.Equal(t, exitOK, code)
	assert.Empty(t, stderr)
	for _, c := range []string{"merge", "margin", "hunt", "reality", "list", "help", "-version", "-scenario", "-matrix"} {
		assert.Regexp(t, `(?m)^(usage:| {6}) simrun `+c+`\b`, usage, "usage line for %s", c)
	}
	for _, c := range subcommands {
		assert.Regexp(t, `\n  `+c.name+` +\S`, usage, "commands list")
	}
	_, help, _ := simrun(t, "help")
	assert.Equal(t, usage, help)
	for _, c := range []string{"merge", "margin", "hunt", "reality", "list"} {
		code, direct, _ := simrun(t, c, "-h")
		require.Equal(t, exitOK, code, c)
		code, viaHelp, _ := simrun(t, "help", c)
		require.Equal(t, exitOK, code, c)
		assert.Equal(t, direct, viaHelp, c)
		assert.Contains(t, direct, "usage: simrun "+c)
		assert.Contains(t, direct, "\n  -", "%s -h lists its flags", c)
	}
	code, _, stderr = simrun(t, "help", "mrege")
	assert.Equal(t, exitUsage, code)
	assert.Equal(t, `simrun help: no command "mrege" (did you mean merge?) (one of merge, margin, hunt, reality, list, help); run 'simrun -h' for usage`+"\n", stderr)

	code, stdout, _ := simrun(t, "-version")
	assert.Equal(t, exitOK, code)
	assert.Regexp(t, `^simrun (\(devel\)|v\S+)( [0-9a-f]{1,12}(\+dirty)?)?\n$`, stdout)
}

// A bad flag is one line naming the flag, the closest one and -h: no
// screenful of usage. Exit 2.
func TestFlagErrorIsOneLine(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-sedes", "3"}, "simrun: flag provided but not defined: -sedes (did you mean -seeds?); run 'simrun -h' for usage"},
		{[]string{"-scenario", partition, "-seeds", "x"}, `simrun: invalid value "x" for flag -seeds: want a whole number of seeds; run 'simrun -h' for usage`},
		{[]string{"-scenario"}, "simrun: flag needs an argument: -scenario; run 'simrun -h' for usage"},
		// A duration without a unit said only "parse error" (issue 38 point 10).
		{[]string{"hunt", "-algo", "raft", "-budget", "5"}, `simrun hunt: invalid value "5" for flag -budget: want a duration with a unit, such as 60s, 5m or 1h30m; run 'simrun hunt -h' for usage`},
		{[]string{"-qiuet"}, "simrun: flag provided but not defined: -qiuet (did you mean -quiet?); run 'simrun -h' for usage"},
		{[]string{"-zzz"}, "simrun: flag provided but not defined: -zzz; run 'simrun -h' for usage"},
		{[]string{"merge", "-jsn", "x"}, "simrun merge: flag provided but not defined: -jsn (did you mean -json?); run 'simrun merge -h' for usage"},
		{[]string{"margin", "-rat", "x"}, "simrun margin: flag provided but not defined: -rat (did you mean -rate?); run 'simrun margin -h' for usage"},
		{[]string{"list", "-dri", "x"}, "simrun list: flag provided but not defined: -dri (did you mean -dir?); run 'simrun list -h' for usage"},
	} {
		code, stdout, stderr := simrun(t, c.args...)
		assert.Equal(t, exitUsage, code, c.args)
		assert.Empty(t, stdout, c.args)
		assert.Equal(t, c.want+"\n", stderr, c.args)
	}
}

// -heat chooses a two-dimensional sweep's heatmap: without two -vary it is
// a usage error, before anything is written.
func TestHeatNeedsTwoVaryDimensions(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "o")
	for _, args := range [][]string{
		{"-heat", "split_brain"},
		{"-heat", "failed"},
		{"-heat", "split_brain", "-vary", "algorithm.heartbeat=40ms,50ms"},
	} {
		code, stdout, stderr := simrun(t, append([]string{"-scenario", partition, "-out", out, "-quiet"}, args...)...)
		assert.Equal(t, exitUsage, code, args)
		assert.Empty(t, stdout)
		assert.Equal(t, 1, strings.Count(stderr, "\n"), stderr)
		assert.Contains(t, stderr, "simrun: -heat ")
		assert.NoDirExists(t, out)
	}
}

// simrun list names every shipped scenario with its description, the
// matrix, and every registered algorithm with every parameter; -dir
// chooses the folder, and a missing one is said plainly.
func TestListShowsTheCatalogueAndAlgorithms(t *testing.T) {
	code, stdout, stderr := simrun(t, "list", "-dir", "../scenarios")
	require.Equal(t, exitOK, code, stderr)
	assert.Regexp(t, `(?m)^  partition\.yaml +The leader is isolated for 10 s, then the partition heals\.$`, stdout)
	assert.Regexp(t, `(?m)^  leader-crash\.yaml +\S`, stdout)
	assert.Contains(t, stdout, "simrun -matrix "+filepath.Join("..", "scenarios", "matrix.yaml"))
	assert.NotRegexp(t, `(?m)^  matrix\.yaml`, stdout, "the matrix is not listed as a scenario")
	assert.NotContains(t, stdout, "does not load")
	for _, a := range registry.Default.All() {
		assert.Contains(t, stdout, "  "+a.Name+" — "+a.Doc)
		for _, p := range a.Params {
			assert.Regexp(t, `(?m)^      `+regexp.QuoteMeta(p.Key)+` .*`+regexp.QuoteMeta(p.Doc)+`$`, stdout, "%s.%s", a.Name, p.Key)
		}
	}
	assert.Regexp(t, `(?m)^      masters +int 1\.\.\d+ `, stdout, "a range")
	assert.Regexp(t, `(?m)^      flavor +one of k8s\|`, stdout, "an enum")

	// No scenarios/ in the current folder (the package's): said, and the
	// algorithms are still listed.
	code, stdout, _ = simrun(t, "list")
	require.Equal(t, exitOK, code)
	assert.Contains(t, stdout, "no scenario catalogue here: scenarios/ does not exist")
	assert.Contains(t, stdout, "  raft — ")
	code, stdout, stderr = simrun(t, "list", "-dir", "no/such")
	assert.Equal(t, exitUsage, code)
	assert.Empty(t, stdout)
	assert.Equal(t, "simrun list: -dir no/such: no/such/ does not exist\n", stderr)
}

// docs/output.md documents every flag of a run and every command -h lists.
func TestEveryFlagAndCommandIsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../docs/output.md")
	require.NoError(t, err)
	newFlagSet(&options{}).VisitAll(func(f *flag.Flag) {
		assert.Contains(t, string(doc), "`-"+f.Name, "docs/output.md: -%s", f.Name)
	})
	for _, c := range subcommands {
		assert.Contains(t, string(doc), "`simrun "+c.name, "docs/output.md: simrun %s", c.name)
	}
}
