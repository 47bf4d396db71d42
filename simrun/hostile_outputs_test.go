//go:build unix

package simrun

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/simrun/outdir"
)

// partitionYAML is the shipped scenario the output cases run.
func partitionYAML(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs("../scenarios/partition.yaml")
	require.NoError(t, err)
	return p
}

// noTemps fails if a simrun temporary is left under dir.
func noTemps(t *testing.T, dir string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil {
			assert.NotContains(t, d.Name(), outdir.TmpTag, "temporary left: %s", p)
		}
		return nil
	})
}

// #29.1: a FIFO, a symbolic link and (as root) a character device named
// as outputs stay what they are: the FIFO and the device get the output as
// a stream, the link's target gets it and the link stays a link.
func TestOutputsKeepSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	// Held open read-write, the FIFO never blocks the reader's open, and the
	// reader sees EOF once this handle and simrun's are closed.
	hold, err := os.OpenFile(fifo, os.O_RDWR, 0)
	require.NoError(t, err)
	got := make(chan []byte)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			got <- nil
			return
		}
		b, _ := io.ReadAll(f)
		f.Close()
		got <- b
	}()
	target := filepath.Join(dir, "target.json")
	require.NoError(t, os.WriteFile(target, []byte("old"), 0o644))
	link := filepath.Join(dir, "link.json")
	require.NoError(t, os.Symlink("target.json", link))
	args := []string{"-quiet", "-scenario", partitionYAML(t), "-out", filepath.Join(dir, "o"), "-trace", fifo, "-json", link}
	dev := filepath.Join(dir, "null")
	root := os.Geteuid() == 0 && makeNullDevice(dev) == nil // a device only root can make, on Linux
	if root {
		args = append(args, "-perfetto", dev)
	}
	var stderr bytes.Buffer
	code := run(args, io.Discard, &stderr)
	hold.Close()
	trace := <-got
	require.Equal(t, 0, code, stderr.String())

	st, err := os.Lstat(fifo)
	require.NoError(t, err)
	assert.NotZero(t, st.Mode()&os.ModeNamedPipe, "the FIFO was replaced: %v", st.Mode())
	assert.True(t, bytes.HasPrefix(trace, []byte("{")), "the trace did not go through the FIFO")
	st, err = os.Lstat(link)
	require.NoError(t, err)
	assert.NotZero(t, st.Mode()&os.ModeSymlink, "the link was replaced: %v", st.Mode())
	b, err := os.ReadFile(target)
	require.NoError(t, err)
	assert.Contains(t, string(b), "electsim.summary")
	if root {
		st, err = os.Lstat(dev)
		require.NoError(t, err)
		assert.NotZero(t, st.Mode()&os.ModeCharDevice, "the device was replaced: %v", st.Mode())
	}
	noTemps(t, dir)
}

// runChildStdout is runChild that also returns stdout.
func runChildStdout(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	r := runBounded(t, dir, args...)
	return r.code, r.stdout, r.stderr
}

// #29.1: -json /dev/fd/1 (and /dev/stdout) is standard output: the JSON
// reaches it, the human summary goes to stderr. (The case uses /dev/fd/1:
// simrun before the fix renamed a file over /dev/stdout itself.)
func TestJSONToDevFdOne(t *testing.T) {
	dir := t.TempDir()
	code, stdout, stderr := runChildStdout(t, dir, "-scenario", partitionYAML(t), "-json", "/dev/fd/1", "-out", "o")
	require.Equal(t, 0, code, stderr)
	assert.True(t, strings.HasPrefix(stdout, "{"), "stdout: %.200q", stdout)
	assert.Contains(t, stdout, "electsim.summary")
	assert.Contains(t, stderr, "report: ")
}

// #29.6 and #29.5: an output path that is a folder, cannot be created, or
// lies inside -out is refused with one line before the sweep starts, and
// nothing is created.
func TestOutputPathsRefusedUpFront(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, "afolder"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "afile"), []byte("x"), 0o644))
	before := snapshot(t, dir)
	for _, c := range [][]string{
		{"-json", "afolder"},
		{"-trace", "afile/t.jsonl"},
		{"-runs", "afile/sub/runs.jsonl"},
		{"-out", "o", "-json", "o/s.json"},
		{"-out", "o", "-runs", "o/deep/runs.jsonl"},
	} {
		args := append([]string{"-scenario", partitionYAML(t), "-seeds", "200"}, c...)
		code, stderr, _ := runChild(t, dir, args...)
		assert.Equal(t, 2, code, "%v: %s", c, stderr)
		assert.Equal(t, 1, strings.Count(strings.TrimSpace(stderr), "\n")+1, "%v: not one line: %q", c, stderr)
		assert.NotContains(t, stderr, "5 nodes", "%v: the sweep started", c)
		assert.Equal(t, before, snapshot(t, dir), "%v changed the folder", c)
	}
}

// #29.5: a folder not simrun's appears at -out while the run is under way
// (made here while simrun waits to write the trace to a FIFO): the folder
// commit is refused (exit 2), and -runs and -json are not put in place
// either, nor do the parent folders made for -runs stay.
func TestRefusedFolderCommitWritesNothing(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "trace.fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	type result struct {
		code   int
		stderr string
	}
	done := make(chan result, 1)
	go func() {
		code, stderr, _ := runChild(t, dir, "-quiet", "-scenario", partitionYAML(t), "-out", "o",
			"-runs", "new/sub/runs.jsonl", "-json", "j.json", "-trace", "trace.fifo")
		done <- result{code, stderr}
	}()
	opened := make(chan *os.File, 1)
	go func() {
		f, _ := os.Open(fifo) // returns once simrun opens it to write the trace
		opened <- f
	}()
	var res result
	select {
	case f := <-opened:
		require.NotNil(t, f)
		require.NoError(t, os.Mkdir(filepath.Join(dir, "o"), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "o", "theirs.txt"), []byte("mine"), 0o644))
		io.Copy(io.Discard, f)
		f.Close()
		res = <-done
	case res = <-done:
		t.Fatalf("simrun never opened the FIFO to write (exit %d): %s", res.code, res.stderr)
	}
	assert.Equal(t, 2, res.code, res.stderr)
	assert.Contains(t, res.stderr, "o is a folder simrun did not create")
	assert.NoFileExists(t, filepath.Join(dir, "j.json"))
	assert.NoDirExists(t, filepath.Join(dir, "new"), "-runs (or its folders) put in place despite the refused commit")
	b, err := os.ReadFile(filepath.Join(dir, "o", "theirs.txt"))
	require.NoError(t, err)
	assert.Equal(t, "mine", string(b))
	noTemps(t, dir)
}

// #29.2: merge takes nothing from a summary it would not take from a
// scenario: a forged scenario.name cannot send the default output folder
// outside out/; and -out (or -json) naming an input, or a folder holding
// one, is refused rather than replacing it.
func TestMergeHostileOutputs(t *testing.T) {
	skipUnderRace(t)
	dir := t.TempDir()
	for i, s := range []string{"s0", "s1"} {
		var stderr bytes.Buffer
		code := run([]string{"-quiet", "-scenario", partitionYAML(t), "-seeds", "2", "-shard", []string{"0/2", "1/2"}[i], "-out", filepath.Join(dir, s)}, io.Discard, &stderr)
		require.Equal(t, 0, code, stderr.String())
	}
	before := snapshot(t, dir)
	for _, c := range [][]string{
		{"merge", "-out", "s0", "s0", "s1"},
		{"merge", "-out", "s0", "s0/summary.json", "s1"},
		{"merge", "-out", ".", "s0", "s1"},
		{"merge", "-out", "m", "-json", "s1/summary.json", "s0", "s1"},
		{"merge", "-out", "m", "-json", "m/s.json", "s0", "s1"},
	} {
		code, stderr, _ := runChild(t, dir, c...)
		assert.Equal(t, 2, code, "%v: %s", c, stderr)
		assert.Equal(t, before, snapshot(t, dir), "%v changed the folder", c)
	}
	// A forged name, run from two folders down: before the fix the merged
	// folder went to dir/escaped/deeper/001.
	for _, s := range []string{"s0", "s1"} {
		p := filepath.Join(dir, s, "summary.json")
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		forged := strings.Replace(string(b), `"name": "partition"`, `"name": "../../escaped/deeper"`, 1)
		require.NotEqual(t, string(b), forged)
		require.NoError(t, os.WriteFile(p, []byte(forged), 0o644))
	}
	cwd := filepath.Join(dir, "a", "b")
	require.NoError(t, os.MkdirAll(cwd, 0o755))
	code, stderr, _ := runChild(t, cwd, "merge", "../../s0", "../../s1")
	assert.Equal(t, 2, code, stderr)
	assert.Contains(t, stderr, "scenario.name")
	assert.NoDirExists(t, filepath.Join(dir, "escaped"))
	assert.NoDirExists(t, filepath.Join(cwd, "out"))
}
