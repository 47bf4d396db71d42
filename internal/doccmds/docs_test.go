package doccmds

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// programs the test knows how to run; a documented command of another
// program fails the test until a marker skips it with a reason.
var programs = map[string]bool{"simrun": true, "go": true, "git": true, "valgrind": true, "cg_annotate": true}

// TestDocCommands runs every command of every Markdown file in the
// repository with its documented outcome (docs/testing.md, "Executable
// docs"): the exit status a marker gives (0 by default) and, for a command
// a `stdout of` marker names, the output the docs show. The commands run in
// a copy of the repository, so out/ folders, materialized files and built
// binaries never land in the working tree.
func TestDocCommands(t *testing.T) {
	if os.Getenv(nestedEnv) != "" {
		t.Skipf("%s is set: a documented command runs this package's tests; running every command again from there would recurse", nestedEnv)
	}
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	cmds := repoCommands(t, root)
	require.NotEmpty(t, cmds)

	sizes := docSizes(t)
	work := t.TempDir()
	repo := filepath.Join(work, "repo")
	copyRepo(t, root, repo)
	for _, d := range []string{"bin", "gobin", "tmp"} {
		require.NoError(t, os.MkdirAll(filepath.Join(work, d), 0o755))
	}
	env := append(os.Environ(),
		// GOBIN first: after the README's `go install ./cmd/simrun`,
		// `simrun` is the installed one, as on a user's machine.
		"PATH="+strings.Join([]string{filepath.Join(work, "gobin"), filepath.Join(work, "bin"), os.Getenv("PATH")}, string(os.PathListSeparator)),
		"GOBIN="+filepath.Join(work, "gobin"),
		nestedEnv+"=1",
	)
	// A read-only go test or go vet runs in the working tree itself, with
	// the environment as given, so it shares the build cache of CI's own
	// `go test ./...`; so do the builds of the binaries the commands run
	// (simrun, `go run PKG`, `go install`, `go build -o`), whose only
	// write is the binary, put outside the tree. Everything else runs in
	// the copy with -trimpath: without it the build cache keys compiles by
	// directory, and the copy's directory is new on every run. With a cold
	// cache a compile in the copy compiles the repository a second time
	// (minutes on a busy machine), so only the commands that write into
	// the tree (-rewrite) do.
	inPlaceEnv := env
	env = append(slices.Clip(env), "GOFLAGS="+strings.TrimSpace(os.Getenv("GOFLAGS")+" -trimpath"))
	build(t, inPlaceEnv, root, filepath.Join(work, "bin", "simrun"), "./cmd/simrun")
	runDot := map[string]string{} // `go run PKG` binaries, by directory and package

	counts := map[string]int{}
	type readOnlyRun struct{ code int }
	readOnlyRuns := map[string]readOnlyRun{}
	for _, c := range cmds {
		name := strings.NewReplacer("/", "_", " ", "_").Replace(fmt.Sprintf("%s:%d", c.File, c.Line))
		t.Run(name, func(t *testing.T) {
			if c.Class != Run {
				counts[c.Class.String()]++
				t.Skipf("%s: %s (%s)", c.Class, c.Text, c.Reason)
			}
			prog := program(c.Text)
			if !programs[path.Base(prog)] { // ./bin/simrun is simrun
				counts["unclassified"]++
				t.Fatalf("%s: no runner for %q (%s): run it from docs_test.go, or mark it <!-- doccmds: skip REASON -->", c.Where(), prog, c.Text)
			}
			if _, err := exec.LookPath(prog); err != nil && prog != "simrun" && !strings.Contains(prog, "/") {
				counts["skipped"]++
				t.Skipf("%s: %s is not installed: %s", c.Where(), prog, c.Text)
			}
			text := Rewrite(c, sizes, filepath.Join(work, "tmp"))
			dir, cmdEnv := filepath.Join(repo, filepath.FromSlash(c.Dir)), env
			listing := false
			if inPlace(text) {
				dir, cmdEnv = filepath.Join(root, filepath.FromSlash(c.Dir)), inPlaceEnv
				// A read-only go test of the main module: `go test ./...`
				// runs its tests itself; list them (ListOnly).
				if l, ok := ListOnly(text); ok && !sizes.Full && c.Dir == "." && c.Exit == 0 && c.Stdout == "" {
					text, listing = l, true
				}
			}
			if m := goRunDotRE.FindStringSubmatch(text); m != nil {
				key := c.Dir + "\x00" + m[2]
				bin, ok := runDot[key]
				if !ok {
					bin = filepath.Join(work, "bin", "run-"+strconv.Itoa(len(runDot)))
					build(t, inPlaceEnv, filepath.Join(root, filepath.FromSlash(c.Dir)), bin, m[2])
					runDot[key] = bin
				}
				text = goRunDotRE.ReplaceAllString(text, "${1}"+bin+"$3")
			}
			if installs(text) {
				dir, cmdEnv = filepath.Join(root, filepath.FromSlash(c.Dir)), inPlaceEnv // it writes GOBIN, outside the tree
			}
			if m := goBuildOutRE.FindStringSubmatch(text); m != nil && !filepath.IsAbs(m[2]) {
				// Its one write, the binary, goes into the copy.
				text = strings.Replace(text, m[0], m[1]+filepath.Join(dir, m[2]), 1)
				dir, cmdEnv = filepath.Join(root, filepath.FromSlash(c.Dir)), inPlaceEnv
			}
			if d, ok := t.Deadline(); ok && time.Until(d) < deadlineMargin {
				counts["not run: out of time"]++
				t.Fatalf("%s: not run: %s left before the test binary's -timeout; a cold build cache compiles everything again (docs/testing.md, \"Executable docs\"): rerun with a larger -timeout", c.Where(), time.Until(d).Round(time.Second))
			}
			counts["run"]++
			// A read-only command in the working tree (go vet ./..., a
			// listing) gives the same answer every time: run once per text
			// and directory, the answer reused (ten docs say go test ./...).
			key := dir + "\x00" + text
			if r, ok := readOnlyRuns[key]; ok && inPlace(text) && c.Stdout == "" {
				counts["reused"]++
				if r.code != c.Exit {
					t.Errorf("%s: %s\nexited %d (run above), the docs say %d", c.Where(), text, r.code, c.Exit)
				}
				return
			}
			start := time.Now()
			stdout, stderr, code := sh(t, cmdEnv, dir, text)
			if inPlace(text) {
				readOnlyRuns[key] = readOnlyRun{code: code}
			}
			t.Logf("%s: %s\n  ran: (cd %s && %s)\n  exit %d in %.1fs", c.Where(), c.Text, c.Dir, text, code, time.Since(start).Seconds())
			if code != c.Exit {
				t.Errorf("%s: %s\nexited %d, the docs say %d (mark another status with <!-- doccmds: exit N -->)\nstdout (tail):\n%s\nstderr (tail):\n%s",
					c.Where(), text, code, c.Exit, tail(stdout, 15), tail(stderr, 15))
			}
			if empty := Listed(stdout); listing && len(empty) > 0 {
				t.Errorf("%s: %s\nnames no test in %s (listed with: %s)", c.Where(), c.Text, strings.Join(empty, ", "), text)
			}
			if c.Stdout != "" {
				require.Equal(t, normalizeOutput(c.Stdout), normalizeOutput(stdout),
					"%s: the output the docs show for %q differs from what it prints", c.Where(), c.Text)
			}
		})
	}
	t.Logf("%d commands: %v", len(cmds), counts)
}

// deadlineMargin is the time a command may take at most, at reduced sizes
// on 2 busy cores with a cold build cache (the first fuzz command: 100 s).
// With less left before the test binary's -timeout, the remaining commands
// fail one by one with a message instead of the whole binary panicking.
const deadlineMargin = 3 * time.Minute

// nestedEnv is set for the documented commands, so a command that runs
// this package's tests does not run every command again.
const nestedEnv = "ELECTSIM_DOC_NESTED"

// goRunDotRE is a `go run` of a package in the module (., ./broken): the
// test builds it once, in the working tree, and runs the binary.
var goRunDotRE = regexp.MustCompile(`(^|\s)go run (\.|\./[\w./-]+)(\s|$)`)

// goBuildOutRE is a single `go build -o PATH …` with a relative PATH.
var goBuildOutRE = regexp.MustCompile(`^(go build -o )(\S+)`)

// installs reports whether a command line is a single `go install` of a
// package (it writes only the binary, into GOBIN, outside the tree).
func installs(text string) bool {
	f := strings.Fields(text)
	return len(f) >= 3 && f[0] == "go" && f[1] == "install" && !strings.ContainsAny(text, "&|;><`(")
}

// inPlace reports whether a (rewritten) command line only reads the
// working tree: a single go test, go vet or go build (without -o) that neither rewrites golden
// files (-rewrite) nor fuzzes (the fuzzer writes the inputs it finds to
// testdata/fuzz/), with no redirection or second command. A property
// suite's failure file is written only when a property fails, which fails
// the documented command anyway.
func inPlace(text string) bool {
	if strings.ContainsAny(text, "&|;><`(") || strings.Contains(text, "-rewrite") || strings.Contains(text, " -fuzz ") {
		return false
	}
	f := strings.Fields(envRE.ReplaceAllString(text, ""))
	return len(f) >= 2 && f[0] == "go" && (f[1] == "test" || f[1] == "vet" || f[1] == "build" && !slices.Contains(f, "-o"))
}

// repoCommands extracts the commands of every Markdown file of the
// repository, failing the test on any problem the extractor reports.
func repoCommands(t *testing.T, root string) []Command {
	t.Helper()
	var all []Command
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != root && skipDir(d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".md") {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		cmds, problems := Extract(filepath.ToSlash(rel), moduleDir(root, filepath.Dir(rel)), src)
		for _, pr := range problems {
			t.Errorf("%v", pr)
		}
		all = append(all, cmds...)
		return nil
	})
	require.NoError(t, err)
	slices.SortStableFunc(all, func(a, b Command) int {
		return strings.Compare(a.File, b.File)
	})
	return all
}

// skipDir names the directories that hold no documentation: VCS data,
// simrun's output, build output and test inputs.
func skipDir(name string) bool {
	return name == ".git" || name == "out" || name == "bin" || name == "testdata" || name == "node_modules"
}

// moduleDir is the directory, relative to root, of the nearest go.mod at
// or above dir: where a Markdown file's commands start.
func moduleDir(root, dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(root, d, "go.mod")); err == nil {
			return filepath.ToSlash(d)
		}
		if d == "." || d == string(filepath.Separator) {
			return "."
		}
	}
}

// docSizes reads the size caps from the environment: ELECTSIM_DOC_FULL=1
// runs every command at its documented size; ELECTSIM_DOC_SEEDS (default
// 10) and ELECTSIM_DOC_FUZZTIME (default unset: fuzz targets run their
// seed corpus only) set the caps.
func docSizes(t *testing.T) Sizes {
	if os.Getenv("ELECTSIM_DOC_FULL") == "1" {
		return Sizes{Full: true}
	}
	s := Sizes{Seeds: 10}
	if v := os.Getenv("ELECTSIM_DOC_SEEDS"); v != "" {
		n, err := strconv.Atoi(v)
		require.NoError(t, err, "ELECTSIM_DOC_SEEDS")
		require.Positive(t, n, "ELECTSIM_DOC_SEEDS")
		s.Seeds = n
	}
	if v := os.Getenv("ELECTSIM_DOC_FUZZTIME"); v != "" {
		s.FuzzTime = v
	}
	return s
}

// copyRepo copies the repository's files (not .git, out/, bin/) to dst and,
// when git is installed, commits them there, so a documented `git diff`
// shows what the commands changed.
func copyRepo(t *testing.T, root, dst string) {
	t.Helper()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		target := filepath.Join(dst, rel)
		switch {
		case d.Name() == ".git" && !d.IsDir(): // a worktree's link to its repository
			return nil
		case d.IsDir() && p != root && (d.Name() == ".git" || d.Name() == "out" || d.Name() == "bin"):
			return filepath.SkipDir
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case !d.Type().IsRegular() || strings.HasSuffix(p, ".test"):
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, info.Mode().Perm())
	})
	require.NoError(t, err)
	if _, err := exec.LookPath("git"); err != nil {
		return
	}
	for _, args := range [][]string{
		{"init", "-q"},
		{"add", "-A"},
		{"-c", "user.name=doccmds", "-c", "user.email=doccmds@localhost", "commit", "-q", "-m", "copy"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dst
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "git %v: %s", args, out)
	}
}

// build compiles the main package pkg in dir to bin.
func build(t *testing.T, env []string, dir, bin, pkg string) {
	t.Helper()
	cmd := exec.Command("go", "build", "-o", bin, pkg)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "go build -o %s %s in %s: %s", bin, pkg, dir, out)
}

// sh runs one command line in dir and returns its output and exit status.
func sh(t *testing.T, env []string, dir, line string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "sh", "-c", line)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = dir, env, &stdout, &stderr
	err := cmd.Run()
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		require.True(t, ok, "sh -c %q: %v", line, err)
		code = ee.ExitCode()
	}
	return stdout.String(), stderr.String(), code
}

// program is the program a command line runs: its first word after
// VAR=value assignments and a leading `cd DIR &&`.
func program(text string) string {
	if m := cdRE.FindStringSubmatch(text); m != nil {
		text = m[2]
	}
	f := strings.Fields(envRE.ReplaceAllString(text, ""))
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

// normalizeOutput masks what varies from run to run in a documented
// output: the numbers of the wall-time line ("1 run in 0.01s (106 runs/s,
// 1 worker)"), and trailing blanks.
func normalizeOutput(s string) string {
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		if strings.Contains(l, "runs/s") {
			l = timingRE.ReplaceAllString(l, " in … (… runs/s")
		}
		b.WriteString(strings.TrimRight(l, " \t") + "\n")
	}
	return b.String()
}

var timingRE = regexp.MustCompile(` in [0-9.]+m?s \([0-9.,]+ runs/s`)

// tail returns the last n lines of s.
func tail(s string, n int) string {
	l := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(l) > n {
		l = l[len(l)-n:]
	}
	return strings.Join(l, "\n")
}
