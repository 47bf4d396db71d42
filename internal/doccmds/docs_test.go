package doccmds

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
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
//
// Files run in parallel (at most -test.parallel at once, GOMAXPROCS by
// default), each in a copy of its own with its own GOBIN and /tmp/, so
// that one file's out/ folders and temporary paths never meet another's;
// a file's commands run in order, as a reader types them.
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
	require.NoError(t, os.MkdirAll(filepath.Join(work, "bin"), 0o755))
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
	base := append(os.Environ(), nestedEnv+"=1")
	build(t, base, root, filepath.Join(work, "bin", "simrun"), "./cmd/simrun")
	common := &shared{runDot: map[string]string{}, counts: map[string]int{}, readOnly: map[string]*readOnly{}}
	common.listing, common.listOut = listAll(t, root, base, cmds, sizes)
	t.Cleanup(func() { t.Logf("%d commands: %v", len(cmds), common.counts) }) // after every file's subtest

	for i, file := range byFile(cmds) {
		name := strings.NewReplacer("/", "_", " ", "_").Replace(file[0].File)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fw := filepath.Join(work, "f"+strconv.Itoa(i))
			for _, d := range []string{"gobin", "tmp"} {
				require.NoError(t, os.MkdirAll(filepath.Join(fw, d), 0o755))
			}
			repo := filepath.Join(fw, "repo")
			if slices.ContainsFunc(file, func(c Command) bool { return c.Class == Run }) {
				// A git repository of its own only for a file that runs
				// git (a documented `git diff` shows what its commands
				// changed): git add and commit of the whole copy cost
				// seconds on a busy machine, per file.
				gitRepo := slices.ContainsFunc(file, func(c Command) bool { return c.Class == Run && program(c.Text) == "git" })
				copyRepo(t, root, repo, gitRepo)
			}
			inPlaceEnv := append(slices.Clip(base),
				// GOBIN first: after the README's `go install ./cmd/simrun`,
				// `simrun` is the installed one, as on a user's machine.
				"PATH="+strings.Join([]string{filepath.Join(fw, "gobin"), filepath.Join(work, "bin"), os.Getenv("PATH")}, string(os.PathListSeparator)),
				"GOBIN="+filepath.Join(fw, "gobin"))
			env := append(slices.Clip(inPlaceEnv), "GOFLAGS="+strings.TrimSpace(os.Getenv("GOFLAGS")+" -trimpath"))
			f := fileRun{root: root, repo: repo, work: work, tmp: filepath.Join(fw, "tmp"), sizes: sizes, env: env, inPlaceEnv: inPlaceEnv, sh: common}
			for _, c := range file {
				t.Run(strconv.Itoa(c.Line), func(t *testing.T) { f.run(t, c) })
			}
		})
	}
}

// listable reports whether c (rewritten to text) is a read-only go test
// of the main module that is answered by listing its tests (ListOnly),
// and takes it apart.
func listable(c Command, text string, s Sizes) (env, pattern string, pkgs []string, ok bool) {
	if !inPlace(text) || s.Full || c.Dir != "." || c.Exit != 0 || c.Stdout != "" {
		return "", "", nil, false
	}
	return listParts(text)
}

// listAll lists, with one go command in the working tree, every package a
// listable command names: one build of each package's test binary, where
// a command each linked its own (Listing). It returns the listing and
// what the command printed; a package that does not build is missing
// from it, which fails the commands that name it.
func listAll(t *testing.T, root string, env []string, cmds []Command, s Sizes) (Listing, string) {
	var pkgs []string
	for _, c := range cmds {
		if c.Class != Run {
			continue
		}
		if _, _, p, ok := listable(c, Rewrite(c, s, os.TempDir()), s); ok {
			pkgs = append(pkgs, p...)
		}
	}
	if len(pkgs) == 0 {
		return Listing{}, ""
	}
	start := time.Now()
	stdout, stderr, code := sh(t, env, root, ListAllCommand(pkgs))
	t.Logf("listing: %s\n  exit %d in %.1fs", ListAllCommand(pkgs), code, time.Since(start).Seconds())
	return ParseListing(stdout, modulePath(t, root)), stdout + stderr
}

// listedWith names the listing's command, for messages.
const listedWith = "go test -list . PKGS, once for every package the docs list"

// modulePath is the main module's path, from root's go.mod.
func modulePath(t *testing.T, root string) string {
	b, err := os.ReadFile(filepath.Join(root, "go.mod"))
	require.NoError(t, err)
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "module" {
			return f[1]
		}
	}
	t.Fatalf("no module line in %s/go.mod", root)
	return ""
}

// byFile splits cmds (sorted by file) into each file's commands, in order.
func byFile(cmds []Command) [][]Command {
	var out [][]Command
	for i, c := range cmds {
		if i == 0 || c.File != cmds[i-1].File {
			out = append(out, nil)
		}
		out[len(out)-1] = append(out[len(out)-1], c)
	}
	return out
}

// shared is what the files running in parallel share: the `go run PKG`
// binaries (built once), the answers of read-only commands (run once) and
// the counts the test logs at its end.
type shared struct {
	mu       sync.Mutex
	runDot   map[string]string // `go run PKG` and test binaries, by directory and package
	counts   map[string]int
	readOnly map[string]*readOnly // a read-only command's run, by directory and text
	// listing answers every listable command (listAll); listOut is what
	// its command printed.
	listing Listing
	listOut string
}

// readOnly is the one run of a read-only command: mu is held while it
// runs; done, its exit status code.
type readOnly struct {
	mu   sync.Mutex
	done bool
	code int
}

// readOnlyRun is the run of the read-only command key, made on first use.
func (s *shared) readOnlyRun(key string) *readOnly {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.readOnly[key]
	if !ok {
		r = &readOnly{}
		s.readOnly[key] = r
	}
	return r
}

func (s *shared) count(what string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.counts[what]++
}

// fileRun runs one Markdown file's commands, in order.
type fileRun struct {
	root, repo, work, tmp string // the working tree, the file's copy, the test's folder, the file's /tmp/
	sizes                 Sizes
	env, inPlaceEnv       []string // for a command in the copy (-trimpath), and in the working tree
	sh                    *shared
}

// run runs one command c with its documented outcome.
func (f *fileRun) run(t *testing.T, c Command) {
	if c.Class != Run {
		f.sh.count(c.Class.String())
		t.Skipf("%s: %s (%s)", c.Class, c.Text, c.Reason)
	}
	prog := program(c.Text)
	if !programs[path.Base(prog)] { // ./bin/simrun is simrun
		f.sh.count("unclassified")
		t.Fatalf("%s: no runner for %q (%s): run it from docs_test.go, or mark it <!-- doccmds: skip REASON -->", c.Where(), prog, c.Text)
	}
	if _, err := exec.LookPath(prog); err != nil && prog != "simrun" && !strings.Contains(prog, "/") {
		f.sh.count("skipped")
		t.Skipf("%s: %s is not installed: %s", c.Where(), prog, c.Text)
	}
	text := Rewrite(c, f.sizes, f.tmp)
	dir, cmdEnv := filepath.Join(f.repo, filepath.FromSlash(c.Dir)), f.env
	if inPlace(text) {
		dir, cmdEnv = filepath.Join(f.root, filepath.FromSlash(c.Dir)), f.inPlaceEnv
		// A read-only go test of the main module: `go test ./...`
		// runs its tests itself; list them (ListOnly), from the one
		// listing of every such package (listAll).
		if _, pattern, pkgs, ok := listable(c, text, f.sizes); ok {
			f.sh.count("listed")
			empty, err := f.sh.listing.Check(pattern, pkgs)
			t.Logf("%s: %s\n  listed: %s in %s", c.Where(), c.Text, pattern, strings.Join(pkgs, " "))
			switch {
			case err != nil:
				t.Errorf("%s: %s\n%v\nthe listing (%s) printed (tail):\n%s", c.Where(), c.Text, err, listedWith, tail(f.sh.listOut, 15))
			case len(empty) > 0:
				t.Errorf("%s: %s\nnames no test in %s (listed with: %s)", c.Where(), c.Text, strings.Join(empty, ", "), listedWith)
			}
			return
		}
	}
	if m := goRunDotRE.FindStringSubmatch(text); m != nil {
		text = goRunDotRE.ReplaceAllString(text, "${1}"+f.runDot(t, c.Dir, m[2])+"$3")
	}
	if installs(text) {
		dir, cmdEnv = filepath.Join(f.root, filepath.FromSlash(c.Dir)), f.inPlaceEnv // it writes GOBIN, outside the tree
	}
	if m := goBuildOutRE.FindStringSubmatch(text); m != nil && !filepath.IsAbs(m[2]) {
		// Its one write, the binary, goes into the copy.
		text = strings.Replace(text, m[0], m[1]+filepath.Join(dir, m[2]), 1)
		dir, cmdEnv = filepath.Join(f.root, filepath.FromSlash(c.Dir)), f.inPlaceEnv
	}
	if tr, ok := SplitTest(text); ok && !inPlace(text) && c.Stdout == "" && c.Exit == 0 {
		// A go test that writes into the copy (-rewrite): its test
		// binaries are built in the working tree, sharing the build
		// cache, and run in the copy's package directories. Built in
		// the copy, -trimpath, it compiled what it tests a second time
		// (49 s on a cold cache).
		var lines []string
		for _, p := range tr.Pkgs {
			line := "cd " + filepath.Join(dir, filepath.FromSlash(p)) + " && "
			if tr.Env != "" {
				line += tr.Env + " "
			}
			lines = append(lines, "("+line+strings.Join(append([]string{f.testBinary(t, c.Dir, p)}, tr.Args...), " ")+")")
		}
		text = strings.Join(lines, " && ")
	}
	if d, ok := t.Deadline(); ok && time.Until(d) < deadlineMargin {
		f.sh.count("not run: out of time")
		t.Fatalf("%s: not run: %s left before the test binary's -timeout; a cold build cache compiles everything again (docs/testing.md, \"Executable docs\"): rerun with a larger -timeout", c.Where(), time.Until(d).Round(time.Second))
	}
	f.sh.count("run")
	// A read-only command in the working tree (go build ./..., a listing)
	// gives the same answer every time: run once per text and directory,
	// the answer reused (ten docs say go test ./...). A file that asks
	// while another runs it waits for that answer.
	var ro *readOnly
	if inPlace(text) && c.Stdout == "" {
		ro = f.sh.readOnlyRun(dir + "\x00" + text)
		ro.mu.Lock()
		defer ro.mu.Unlock()
		if ro.done {
			f.sh.count("reused")
			if ro.code != c.Exit {
				t.Errorf("%s: %s\nexited %d (run above), the docs say %d", c.Where(), text, ro.code, c.Exit)
			}
			return
		}
	}
	start := time.Now()
	stdout, stderr, code := sh(t, cmdEnv, dir, text)
	if ro != nil {
		ro.done, ro.code = true, code
	}
	t.Logf("%s: %s\n  ran: (cd %s && %s)\n  exit %d in %.1fs", c.Where(), c.Text, c.Dir, text, code, time.Since(start).Seconds())
	if code != c.Exit {
		t.Errorf("%s: %s\nexited %d, the docs say %d (mark another status with <!-- doccmds: exit N -->)\nstdout (tail):\n%s\nstderr (tail):\n%s",
			c.Where(), text, code, c.Exit, tail(stdout, 15), tail(stderr, 15))
	}
	if c.Stdout != "" {
		require.Equal(t, normalizeOutput(c.Stdout), normalizeOutput(stdout),
			"%s: the output the docs show for %q differs from what it prints", c.Where(), c.Text)
	}
}

// testBinary is the test binary of pkg in dir (relative to the root),
// built in the working tree (`go test -c`) the first time a file asks.
func (f *fileRun) testBinary(t *testing.T, dir, pkg string) string {
	f.sh.mu.Lock()
	defer f.sh.mu.Unlock()
	key := "test\x00" + dir + "\x00" + pkg
	bin, ok := f.sh.runDot[key]
	if !ok {
		bin = filepath.Join(f.work, "bin", "test-"+strconv.Itoa(len(f.sh.runDot)))
		cmd := exec.Command("go", "test", "-c", "-o", bin, pkg)
		cmd.Dir, cmd.Env = filepath.Join(f.root, filepath.FromSlash(dir)), f.inPlaceEnv
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "go test -c -o %s %s in %s: %s", bin, pkg, dir, out)
		f.sh.runDot[key] = bin
	}
	return bin
}

// runDot is the binary of `go run pkg` in dir (relative to the root),
// built in the working tree the first time a file asks for it: files
// running at once wait for the one build.
func (f *fileRun) runDot(t *testing.T, dir, pkg string) string {
	f.sh.mu.Lock()
	defer f.sh.mu.Unlock()
	key := dir + "\x00" + pkg
	bin, ok := f.sh.runDot[key]
	if !ok {
		bin = filepath.Join(f.work, "bin", "run-"+strconv.Itoa(len(f.sh.runDot)))
		build(t, f.inPlaceEnv, filepath.Join(f.root, filepath.FromSlash(dir)), bin, pkg)
		f.sh.runDot[key] = bin
	}
	return bin
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
// with gitRepo when git is installed, commits them there, so a documented
// `git diff` shows what the commands changed.
func copyRepo(t *testing.T, root, dst string, gitRepo bool) {
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
	if _, err := exec.LookPath("git"); err != nil || !gitRepo {
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
