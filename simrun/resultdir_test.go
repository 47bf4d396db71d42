//go:build unix

package simrun

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/scenario"
	"github.com/electsim/electsim/simrun/outdir"
)

// contents lists every file under dir with a hash of its bytes, to show that
// a later command left a result exactly as it was.
func contents(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		rel, _ := filepath.Rel(dir, p)
		m[rel] = hex.EncodeToString(sum[:])
		return nil
	}))
	return m
}

// latest is where out/<name>/latest points.
func latest(t *testing.T, base string) string {
	t.Helper()
	target, err := os.Readlink(filepath.Join(base, outdir.LatestName))
	require.NoError(t, err)
	return target
}

// Following simrun's own advice keeps every earlier result (issue 26,
// point 3): without -out each invocation writes a new numbered folder,
// every printed path names it, and the printed next step (simrun -scenario
// out/bully-partition/001/repro.yaml) writes to out/bully-partition-repro/001
// instead of replacing the sweep it came from. Before, both wrote
// out/bully-partition. (A real failure, bully's split-brain with nothing
// allowed: a missing expected finding is not shrunk.)
func TestPrintedCommandsKeepEarlierResults(t *testing.T) {
	skipUnderRace(t)
	sc, err := filepath.Abs(bullyPartition)
	require.NoError(t, err)
	t.Chdir(t.TempDir())
	// A failure no contract excuses: bully with an answer timeout below a
	// round trip (outside its synchronous model).
	sweep := []string{"-scenario", sc, "-seeds", "3", "-set", "expect.allow=[]", "-set", "expect.violations=[]",
		"-set", "algorithm.answer_timeout=1ms", "-shrink-time", "10s"}
	code, out, e := simrun(t, sweep...)
	require.Equal(t, exitViolation, code, e)
	first := filepath.Join("out", "bully-partition", "001")
	assert.Contains(t, out, "report: "+filepath.Join(first, "report.html")+"\n")
	next := regexp.MustCompile(`shrunk seed \d+ to (\S+) .*: simrun -scenario (\S+)\n`).FindStringSubmatch(out)
	require.NotNil(t, next, out)
	assert.Equal(t, filepath.Join(first, "repro.yaml"), next[1])
	assert.Equal(t, filepath.Join(first, "repro.yaml"), next[2])
	assert.Equal(t, "001", latest(t, filepath.Join("out", "bully-partition")))
	before := contents(t, first)
	require.Contains(t, before, "summary.json")
	require.Contains(t, before, "runs.jsonl.gz")

	// The printed next step: a new folder of the repro's own name.
	code, out, e = simrun(t, "-scenario", next[2])
	require.Equal(t, exitViolation, code, e)
	assert.Contains(t, out, "report: "+filepath.Join("out", "bully-partition-repro", "001", "report.html")+"\n")
	assert.Equal(t, before, contents(t, first), "the sweep's result is untouched")
	if raceEnabled {
		return // numbering goes on in TestDefaultFoldersNumbered (-race: 3 s each)
	}
	// The same sweep again: the next number, latest moves to it.
	code, out, e = simrun(t, append(sweep, "-shrink=false")...)
	require.Equal(t, exitViolation, code, e)
	assert.Contains(t, out, "report: "+filepath.Join("out", "bully-partition", "002", "report.html")+"\n")
	assert.Equal(t, "002", latest(t, filepath.Join("out", "bully-partition")))
	assert.Equal(t, before, contents(t, first))
	entries, err := os.ReadDir(filepath.Join("out", "bully-partition"))
	require.NoError(t, err)
	var names []string
	for _, en := range entries {
		names = append(names, en.Name())
	}
	assert.Equal(t, []string{"001", "002", "latest"}, names, "nothing else beside the results")
	// Through latest, the newest result.
	assert.FileExists(t, filepath.Join("out", "bully-partition", "latest", "summary.json"))
}

// Concurrent results in one base folder each get a folder of their own:
// the number is allocated with mkdir at commit, and the staged folder is
// renamed over the empty reservation, never over another's result.
func TestResultNumbersConcurrent(t *testing.T) {
	base := filepath.Join(t.TempDir(), "out", "x")
	const n = 12
	dirs := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			dir, _, err := writeFolder(outdir.DestFor("", base), func(tmp string) error {
				return os.WriteFile(filepath.Join(tmp, "id"), []byte{byte('a' + i)}, 0o644)
			})
			assert.NoError(t, err)
			dirs[i] = dir
		}()
	}
	wg.Wait()
	seen := map[string]bool{}
	for i, dir := range dirs {
		require.False(t, seen[dir], "%s given twice", dir)
		seen[dir] = true
		b, err := os.ReadFile(filepath.Join(dir, "id"))
		require.NoError(t, err)
		assert.Equal(t, []byte{byte('a' + i)}, b, dir)
		_, ok := outdir.SeqNumber(filepath.Base(dir))
		assert.True(t, ok, dir)
	}
	entries, err := os.ReadDir(base)
	require.NoError(t, err)
	assert.Len(t, entries, n+1, "the results and latest, no temporaries or empty reservations")
	assert.True(t, seen[filepath.Join(base, latest(t, base))], "latest names one of them")
}

// base/latest is replaced only if it is simrun's: a file or a link to
// something else is left as it is, with a note (on stderr); -out never
// touches it. A base that is a file, or a single output folder, is
// refused before any work.
func TestLatestOnlyIfOurs(t *testing.T) {
	base := filepath.Join(t.TempDir(), "out", "x")
	write := func(d outdir.OutputDest) (string, string) {
		t.Helper()
		dir, note, err := writeFolder(d, func(string) error { return nil })
		require.NoError(t, err)
		return dir, note
	}
	require.NoError(t, os.MkdirAll(base, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(base, "latest"), []byte("my notes"), 0o644))
	dir, note := write(outdir.DestFor("", base))
	assert.Equal(t, filepath.Join(base, "001"), dir)
	assert.Contains(t, note, "latest is not simrun's")
	b, err := os.ReadFile(filepath.Join(base, "latest"))
	require.NoError(t, err)
	assert.Equal(t, "my notes", string(b))

	require.NoError(t, os.Remove(filepath.Join(base, "latest")))
	require.NoError(t, os.Symlink("../elsewhere", filepath.Join(base, "latest")))
	dir, note = write(outdir.DestFor("", base))
	assert.Equal(t, filepath.Join(base, "002"), dir)
	assert.Contains(t, note, "not a numbered result")
	assert.Equal(t, "../elsewhere", latest(t, base))

	require.NoError(t, os.Remove(filepath.Join(base, "latest")))
	_, note = write(outdir.DestFor("", base))
	assert.Empty(t, note)
	assert.Equal(t, "003", latest(t, base))
	dir, _ = write(outdir.DestFor(filepath.Join(base, "..", "mine"), base))
	assert.Equal(t, filepath.Join(filepath.Dir(base), "mine"), dir, "-out: that folder")
	assert.Equal(t, "003", latest(t, base), "-out leaves latest alone")
	assert.NoDirExists(t, filepath.Join(base, "004"))

	// simrun prints the note; refusals come before any work.
	sc, err := filepath.Abs(partition)
	require.NoError(t, err)
	t.Chdir(filepath.Dir(filepath.Dir(base)))
	require.NoError(t, os.MkdirAll(filepath.Join("out", "partition"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join("out", "partition", "latest"), []byte("my notes"), 0o644))
	code, _, e := simrun(t, "-scenario", sc, "-shrink=false")
	require.Equal(t, exitOK, code, e)
	assert.Contains(t, e, "simrun: out/partition/latest is not simrun's")
	assert.FileExists(t, filepath.Join("out", "partition", "001", "summary.json"))
	// A single output folder there (from -out out/bully-partition, or an
	// older simrun): no results inside it, where replacing it would remove
	// them.
	bully := filepath.Join("out", "bully-partition")
	require.NoError(t, os.MkdirAll(bully, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(bully, outdir.MarkerFile), []byte(outdir.MarkerText), 0o644))
	code, _, e = simrun(t, "-scenario", filepath.Join(filepath.Dir(sc), "bully-partition.yaml"), "-quiet")
	require.Equal(t, exitUsage, code, e)
	assert.Contains(t, e, "out/bully-partition is a single output folder")
	assert.NoDirExists(t, filepath.Join(bully, "001"))
	require.NoError(t, os.WriteFile(filepath.Join("out", "leader-crash"), []byte("x"), 0o644))
	code, _, e = simrun(t, "-scenario", filepath.Join(filepath.Dir(sc), "leader-crash.yaml"), "-quiet")
	require.Equal(t, exitUsage, code, e)
	assert.Contains(t, e, "out/leader-crash exists and is not a folder")
}

// simrun merge, -matrix and simrun margin number their default folders
// the same way.
func TestDefaultFoldersNumbered(t *testing.T) {
	abs, err := filepath.Abs("../scenarios")
	require.NoError(t, err)
	tmp := t.TempDir()
	t.Chdir(tmp)
	sc := filepath.Join(abs, "partition.yaml")
	code, _, e := simrun(t, "-scenario", sc, "-quiet", "-out", "s0")
	require.Equal(t, exitOK, code, e)
	code, out, e := simrun(t, "merge", "s0")
	require.Equal(t, exitOK, code, e)
	assert.Contains(t, out, "report: "+filepath.Join("out", "partition", "001", "report.html"))
	assert.Equal(t, "001", latest(t, filepath.Join("out", "partition")))

	m := filepath.Join(tmp, "m.yaml")
	require.NoError(t, os.WriteFile(m, []byte("name: tiny\nseeds: 1\nalgorithms: [raft]\nscenarios: ["+sc+"]\n"), 0o644))
	for _, want := range []string{"001", "002"} {
		code, out, e = simrun(t, "-matrix", m)
		require.Equal(t, exitOK, code, e)
		assert.Contains(t, out, filepath.Join("out", "matrix-tiny", want, "matrix.html"))
		assert.Equal(t, want, latest(t, filepath.Join("out", "matrix-tiny")))
	}

	code, out, e = simrun(t, "margin", "-scenario", filepath.Join(abs, "fast-clock-follower.yaml"), "-rate", "faults[0].clock.rate", "-rates", "1.0,2.0", "-seeds", "1")
	require.Equal(t, exitOK, code, e)
	assert.Contains(t, out, "figure: "+filepath.Join("out", "fast-clock-follower-margin", "001", "margin.png"))
}

// Files simrun derives from a scenario get names of their own, so their
// results do not go to the original's folder; the name changes no run.
func TestDerivedNames(t *testing.T) {
	assert.Equal(t, "swarm-repro", derivedName("swarm", "-repro"))
	assert.Equal(t, "swarm-repro", derivedName("swarm-repro", "-repro"), "a repro of a repro")
	assert.Equal(t, "swarm-seed7", derivedName("swarm", "-seed7"))
	long := derivedName(strings.Repeat("a", scenario.MaxNameLen), "-repro")
	assert.Len(t, long, scenario.MaxNameLen)
	assert.NoError(t, scenario.ValidName(long))
	assert.True(t, strings.HasSuffix(long, "-repro"))
}
