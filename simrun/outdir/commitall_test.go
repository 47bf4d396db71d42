package outdir

import (
	"errors"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// failingOutput is an output whose install fails, as a rename does when
// its path turned into a folder mid-sweep.
type failingOutput struct{ aborted bool }

func (f *failingOutput) Install() error {
	f.aborted = true // an install that fails has aborted itself (output.install)
	return errors.New("rename: is a directory")
}
func (f *failingOutput) Finish()   {}
func (f *failingOutput) Rollback() {}
func (f *failingOutput) Abort()    { f.aborted = true }

// stagedWith stages a folder at out holding one file, name, with body.
func stagedWith(t *testing.T, out, name, body string) *StagedFolder {
	t.Helper()
	st, err := StageFolder(out)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(st.Tmp, name), []byte(body), 0o644))
	return st
}

// stagedFile stages a file at path holding body.
func stagedFile(t *testing.T, path, body string) *AtomicFile {
	t.Helper()
	f, err := CreateAtomic(path)
	require.NoError(t, err)
	_, err = f.W.WriteString(body)
	require.NoError(t, err)
	return f
}

func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	sort.Strings(out)
	return out
}

// All or nothing across outputs: when an output after the folder cannot be
// put in place, the folder and every file already installed go back to
// what they were (the old code left the new folder and -runs in place and
// exited 2).
func TestCommitAllRollsBackWhatItInstalled(t *testing.T) {
	dir := t.TempDir()
	out, runs, js := filepath.Join(dir, "o"), filepath.Join(dir, "runs.jsonl"), filepath.Join(dir, "s.json")
	require.NoError(t, stagedWith(t, out, "v", "old folder").Commit())
	require.NoError(t, os.WriteFile(runs, []byte("old runs"), 0o644))
	before := names(t, dir)

	fail := &failingOutput{}
	later := stagedFile(t, js, "new json")
	err := CommitAll(stagedWith(t, out, "v", "new folder"), stagedFile(t, runs, "new runs"), fail, later)
	require.Error(t, err)
	assert.True(t, fail.aborted)

	got, err := os.ReadFile(filepath.Join(out, "v"))
	require.NoError(t, err)
	assert.Equal(t, "old folder", string(got), "the replaced folder is back")
	got, err = os.ReadFile(runs)
	require.NoError(t, err)
	assert.Equal(t, "old runs", string(got), "the replaced -runs file is back")
	assert.NoFileExists(t, js, "an output after the failure is never installed")
	assert.Equal(t, before, names(t, dir), "no temporaries, nothing new")
}

// A numbered result rolled back leaves no numbered folder and does not move
// latest; a new file with nothing before it is removed.
func TestCommitAllRollsBackANumberedResult(t *testing.T) {
	dir := t.TempDir()
	base := filepath.Join(dir, "out", "x")
	st, err := DestFor("", base).Stage()
	require.NoError(t, err)
	require.NoError(t, CommitAll(st))
	before := names(t, base)
	require.Equal(t, []string{"001", "latest"}, before)

	st2, err := DestFor("", base).Stage()
	require.NoError(t, err)
	js := filepath.Join(dir, "s.json")
	err = CommitAll(st2, stagedFile(t, js, "{}"), &failingOutput{})
	require.Error(t, err)
	assert.Equal(t, before, names(t, base), "no second numbered folder; latest unchanged")
	assert.NoFileExists(t, js)
}
