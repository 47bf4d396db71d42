package doccmds

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// brief is what a test compares: a command's line, directory, class, exit
// and text.
type brief struct {
	Line  int
	Dir   string
	Class Class
	Exit  int
	Text  string
}

func briefs(cmds []Command) []brief {
	var b []brief
	for _, c := range cmds {
		b = append(b, brief{c.Line, c.Dir, c.Class, c.Exit, c.Text})
	}
	return b
}

func TestExtractShellFence(t *testing.T) {
	src := strings.Join([]string{
		"# Title", //                                                      1
		"",
		"<!-- doccmds: exit 1 -->",
		"```sh",
		"# a comment line", // 5
		"simrun -scenario scenarios/a.yaml -seeds 10   # first", // 6
		"go test ./x -run 'Test#1' \\",                          // 7
		"    -count=1   # joined",                               // 8
		"",                                                      // 9
		"cd examples/custom-election",                           // 10
		"go run . -scenario example.yaml",                       // 11
		"cd ../.. && simrun -scenario F -seed N",                // 12
		"$ simrun list",                                         // 13
		"```",
		"",
		"```go",
		"simrun -scenario ignored.yaml",
		"```",
	}, "\n")
	cmds, problems := Extract("docs/x.md", ".", []byte(src))
	require.Empty(t, problems)
	assert.Equal(t, []brief{
		{6, ".", Run, 1, "simrun -scenario scenarios/a.yaml -seeds 10"},
		{7, ".", Run, 1, "go test ./x -run 'Test#1' -count=1"},
		{11, "examples/custom-election", Run, 1, "go run . -scenario example.yaml"},
		{12, "examples/custom-election", Synopsis, 1, "cd ../.. && simrun -scenario F -seed N"},
		{13, ".", Run, 1, "simrun list"},
	}, briefs(cmds))
	for _, c := range cmds {
		assert.Equal(t, 4, c.Fence)
	}
}

func TestExtractInline(t *testing.T) {
	src := strings.Join([]string{
		"Run `simrun -scenario scenarios/partition.yaml -seed 7` or `go test ./sim`.",
		"| sweep | `simrun -matrix scenarios/matrix.yaml`<!-- doccmds: exit 1 --> |",
		"`simrun -algo` and `simrun merge` and `go test -race` are flags; `simrun list` prints.",
		"`simrun -scenario F -seeds N`, `simrun merge DIR…`, `simrun margin [-seeds K]`, `simrun -set PATH=V`, `simrun -scenario out/<name>/repro.yaml`.",
		"`RAPID_CHECKS=10 go test ./...` but `RAPID_CHECKS=N` is no command, nor `go.mod` nor `sim.New`.",
		"`simrun merge -out /r/m /r/s-*`<!-- doccmds: skip in a container -->; `$JOB go test ./x` no.",
	}, "\n")
	cmds, problems := Extract("README.md", ".", []byte(src))
	require.Empty(t, problems)
	assert.Equal(t, []brief{
		{1, ".", Run, 0, "simrun -scenario scenarios/partition.yaml -seed 7"},
		{1, ".", Run, 0, "go test ./sim"},
		{2, ".", Run, 1, "simrun -matrix scenarios/matrix.yaml"},
		{3, ".", Mention, 0, "simrun -algo"},
		{3, ".", Mention, 0, "simrun merge"},
		{3, ".", Mention, 0, "go test -race"},
		{3, ".", Run, 0, "simrun list"},
		{4, ".", Synopsis, 0, "simrun -scenario F -seeds N"},
		{4, ".", Synopsis, 0, "simrun merge DIR…"},
		{4, ".", Synopsis, 0, "simrun margin [-seeds K]"},
		{4, ".", Synopsis, 0, "simrun -set PATH=V"},
		{4, ".", Synopsis, 0, "simrun -scenario out/<name>/repro.yaml"},
		{5, ".", Run, 0, "RAPID_CHECKS=10 go test ./..."},
		{6, ".", Skipped, 0, "simrun merge -out /r/m /r/s-*"},
	}, briefs(cmds))
	assert.Equal(t, "in a container", cmds[len(cmds)-1].Reason)
}

func TestExtractStdoutMarker(t *testing.T) {
	src := strings.Join([]string{
		"```sh",
		"go run ./cmd/simrun -scenario scenarios/partition.yaml   # the example",
		"```",
		"",
		"<!-- doccmds: stdout of go run ./cmd/simrun -scenario scenarios/partition.yaml -->",
		"```text",
		"partition — isolated",
		"seeds 1..1 · 1 run in 0.01s (106 runs/s, 1 worker)",
		"```",
	}, "\n")
	cmds, problems := Extract("README.md", ".", []byte(src))
	require.Empty(t, problems)
	require.Len(t, cmds, 1)
	assert.Equal(t, "partition — isolated\nseeds 1..1 · 1 run in 0.01s (106 runs/s, 1 worker)\n", cmds[0].Stdout)
}

// Every way a document can hide a command from the test, or mark it
// wrongly, is an error naming the file and line.
func TestExtractProblems(t *testing.T) {
	for name, tc := range map[string]struct {
		src  string
		line int
		msg  string
	}{
		"command in an unlabeled fence":     {"text\n\n```\nsimrun -scenario scenarios/a.yaml\n```\n", 4, "no language"},
		"env command in an unlabeled fence": {"```\nRAPID_CHECKS=5 go test ./x\n```\n", 2, "no language"},
		"marker not before a fence":         {"<!-- doccmds: exit 1 -->\nSome prose.\n```sh\nsimrun list\n```\n", 2, "right before a fence"},
		"unknown directive":                 {"<!-- doccmds: exits 1 -->\n```sh\nsimrun list\n```\n", 1, "want exit N"},
		"exit without a number":             {"`simrun list`<!-- doccmds: exit one -->\n", 1, "exit wants a number"},
		"stdout of no such command":         {"<!-- doccmds: stdout of simrun help -->\n```text\nusage\n```\n", 2, "no such command"},
	} {
		t.Run(name, func(t *testing.T) {
			_, problems := Extract("docs/x.md", ".", []byte(tc.src))
			require.Len(t, problems, 1)
			assert.Equal(t, tc.line, problems[0].Line)
			assert.Contains(t, problems[0].Error(), "docs/x.md:")
			assert.Contains(t, problems[0].Msg, tc.msg)
		})
	}
	// Output in a labelled fence is not a command, even if it looks like one.
	_, problems := Extract("docs/x.md", ".", []byte("```text\nsimrun merge: shard 2 of 4 is missing\n```\n"))
	assert.Empty(t, problems)
}

func TestRewrite(t *testing.T) {
	small := Sizes{Seeds: 10}
	for _, tc := range []struct {
		dir, in, small, full string
	}{
		{".", "go run ./cmd/simrun -scenario scenarios/p.yaml -seeds 200 -algo raft",
			"simrun -scenario scenarios/p.yaml -seeds 10 -algo raft",
			"simrun -scenario scenarios/p.yaml -seeds 200 -algo raft"},
		{".", "simrun -scenario s.yaml -seed 1 -seeds 5", "simrun -scenario s.yaml -seed 1 -seeds 5", "simrun -scenario s.yaml -seed 1 -seeds 5"},
		{".", "go run ./cmd/simrun -matrix scenarios/matrix.yaml",
			"simrun -matrix scenarios/matrix.yaml -seeds 10", "simrun -matrix scenarios/matrix.yaml"},
		{".", "go test ./...", "go build ./...", "go vet ./..."},
		{".", "RAPID_CHECKS=10000 go test ./...", "go build ./...", "go vet ./..."},
		{"examples/custom-election", "go test ./...", "go test -count=1 ./...", "go test -count=1 ./..."},
		{".", "RAPID_CHECKS=20000 RAPID_NOFAILFILE=1 go test -count=1 -timeout 2h -run TestProperty ./cron",
			"RAPID_NOFAILFILE=1 go test -count=1 -timeout 2h -run TestProperty ./cron",
			"RAPID_CHECKS=20000 RAPID_NOFAILFILE=1 go test -count=1 -timeout 2h -run TestProperty ./cron"},
		{".", "go test ./sim -run '^$' -fuzz FuzzEngine -fuzztime 10m",
			"go test -count=1 ./sim -run '^FuzzEngine$'",
			"go test -count=1 ./sim -run '^$' -fuzz FuzzEngine -fuzztime 10m"},
		{".", "go test ./reports -run '^$' -fuzz FuzzDistJSON -fuzztime 10m -fuzzminimizetime 2s",
			"go test -count=1 ./reports -run '^FuzzDistJSON$'",
			"go test -count=1 ./reports -run '^$' -fuzz FuzzDistJSON -fuzztime 10m -fuzzminimizetime 2s"},
		{".", "go test ./sim -run x -bench SimHour",
			"go test -count=1 ./sim -run x -benchtime 1x -bench SimHour",
			"go test -count=1 ./sim -run x -bench SimHour"},
		{".", "go test -c -o /tmp/simrun.test ./simrun",
			"go test -count=1 -c -o /T/simrun.test ./simrun", "go test -count=1 -c -o /T/simrun.test ./simrun"},
		{"simrun", "cg_annotate /tmp/cg.out | head -80", "cg_annotate /T/cg.out | head -80", "cg_annotate /T/cg.out | head -80"},
	} {
		c := Command{Text: tc.in, Dir: tc.dir}
		assert.Equal(t, tc.small, Rewrite(c, small, "/T"), "%s", tc.in)
		assert.Equal(t, tc.full, Rewrite(c, Sizes{Full: true}, "/T"), "%s (full)", tc.in)
	}
}

// The wall-time line is the only line of simrun's summary that varies;
// everything else must match the docs exactly.
func TestNormalizeOutput(t *testing.T) {
	doc := "partition — x\nseeds 1..1 · 1 run in 0.01s (106 runs/s, 1 worker)\n\nraft 1 1\n"
	got := "partition — x\nseeds 1..1 · 1 run in 0.23s (4.3 runs/s, 1 worker)  \n\nraft 1 1\n"
	assert.Equal(t, normalizeOutput(doc), normalizeOutput(got))
	assert.NotEqual(t, normalizeOutput(doc), normalizeOutput(strings.Replace(got, "1..1", "1..2", 1)))
	assert.NotEqual(t, normalizeOutput(doc), normalizeOutput(strings.Replace(got, "raft 1 1", "raft 1 0", 1)))
}

func TestProgram(t *testing.T) {
	assert.Equal(t, "valgrind", program("cd simrun && GODEBUG=a=1,b=off valgrind --tool=cachegrind x"))
	assert.Equal(t, "go", program("RAPID_CHECKS=1 go test ./x"))
	assert.Equal(t, "kubectl", program("kubectl apply -f x.yaml"))
}

func TestInPlace(t *testing.T) {
	for text, want := range map[string]bool{
		"go test -count=1 ./sim -run '^FuzzEngine$'":                               true,
		"RAPID_NOFAILFILE=1 go test -count=1 -timeout 2h -run TestProperty ./cron": true,
		"go vet ./...":   true,
		"go build ./...": true, // builds nothing it keeps
		"go test -count=1 ./sim -run '^$' -fuzz FuzzEngine -fuzztime 1s":                   false,
		"go test -count=1 ./algorithms/raftelect -run TestInteraction -rewrite":            false,
		"go build -o bin/simrun ./cmd/simrun":                                              false,
		"go install ./cmd/simrun":                                                          false,
		"go test ./sim > /T/x":                                                             false,
		"cd simrun && GODEBUG=asyncpreemptoff=1 valgrind --tool=cachegrind /T/simrun.test": false,
		"simrun -scenario scenarios/partition.yaml":                                        false,
		"go test -count=1 ./... $(go list ./... | grep -v examples)":                       false,
	} {
		assert.Equal(t, want, inPlace(text), text)
	}
}

// A read-only go test of the main module lists the tests it names: its
// -bench pattern, else its -run pattern, else every test.
func TestListOnly(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"go test -count=1 ./internal/bugzoo", "go test -list . ./internal/bugzoo"},
		{"go test -count=1 ./checker -run TestCheckerAgreesWithOracle", "go test -list TestCheckerAgreesWithOracle ./checker"},
		{"go test -count=1 ./sim -run x -benchtime 1x -bench SimHour", "go test -list SimHour ./sim"},
		{"RAPID_NOFAILFILE=1 go test -count=1 -timeout 2h -run TestProperty ./algorithms/raftelect ./cron", "RAPID_NOFAILFILE=1 go test -list TestProperty ./algorithms/raftelect ./cron"},
		{"go test -count=1 ./scenario -run '^FuzzParse$'", "go test -list '^FuzzParse$' ./scenario"},
		{"go test -count=1 ./sim -run '^$' -benchtime 1x -bench . -benchmem", "go test -list . ./sim"},
	} {
		got, ok := ListOnly(tc.in)
		assert.True(t, ok, tc.in)
		assert.Equal(t, tc.want, got, tc.in)
	}
	_, ok := ListOnly("go vet ./...")
	assert.False(t, ok)
	_, ok = ListOnly("go test -count=1 -c -o /tmp/simrun.test ./simrun")
	assert.False(t, ok, "a test binary a later command runs")
	assert.Equal(t, []string{"example.com/b"}, Listed("TestA\nok  \texample.com/a\t0.01s\nok  \texample.com/b\t0.01s\n?   \texample.com/c\t[no test files]\n"))
}
