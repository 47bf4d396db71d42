package customtest

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The recipe docs/extending.md ("Start from the example") and the example's
// README give for a copy of examples/custom-election outside the
// repository, whose `replace => ../..` no longer points at electsim.
var copyRecipe = []string{
	`cp -r examples/custom-election ../my-election`,
	`go mod edit -replace github.com/electsim/electsim="$electsim"`,
	`go mod tidy`,
}

// A copy of the example, outside the repository, builds, vets and passes
// its tests after exactly the documented recipe; its tests write nothing
// into it, and the output folder its README's command writes is ignored by
// the .gitignore it carries. Go's environment (GOFLAGS, GOPROXY, GOCACHE,
// GOMODCACHE, …) passes through to the go commands.
func TestExampleCopiedOutsideTheRepository(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and tests a copy of the example module")
	}
	goBin, err := exec.LookPath("go")
	require.NoError(t, err, "the go command")
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	for _, doc := range []string{"docs/extending.md", "examples/custom-election/README.md"} {
		b, err := os.ReadFile(filepath.Join(root, doc))
		require.NoError(t, err)
		for _, line := range copyRecipe {
			require.Contains(t, string(b), line, "%s documents the copy recipe", doc)
		}
	}

	dir := filepath.Join(t.TempDir(), "my-election")
	copyTree(t, filepath.Join(root, "examples", "custom-election"), dir)
	run := func(name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOWORK=off") // a go.work of the caller's must not reach the copy
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s %s\n%s", filepath.Base(name), strings.Join(args, " "), out)
		return string(out)
	}
	run(goBin, "mod", "edit", "-replace", "github.com/electsim/electsim="+root)
	run(goBin, "mod", "tidy")
	run(goBin, "build", "./...")
	run(goBin, "vet", "./...")

	before := files(t, dir)
	run(goBin, "test", "./...")
	require.Equal(t, before, files(t, dir), "go test ./... wrote into the copy")

	// The README's command writes out/example/001/ beside example.yaml; the
	// copy's own .gitignore keeps it out of the user's repository.
	bin := filepath.Join(t.TempDir(), "custom-election")
	run(goBin, "build", "-o", bin, ".")
	run(bin, "-scenario", "example.yaml", "-seeds", "3", "-quiet")
	require.FileExists(t, filepath.Join(dir, "out", "example", "001", "summary.json"))
	// A sweep of the user's algorithm runs in worker processes by default
	// (registry.Algorithm.InProcess unset), so a stack overflow or an
	// endless handler in it is a crashed run, not the end of the sweep.
	out := run(bin, "-scenario", "example.yaml", "-seeds", "3")
	require.Contains(t, out, "worker processes (not built into electsim")
	out = run(bin, "-scenario", "example.yaml", "-seeds", "3", "-isolate=false")
	require.NotContains(t, out, "worker processes")
	gitBin, err := exec.LookPath("git")
	if err != nil {
		t.Log("no git: the .gitignore is not checked")
		return
	}
	run(gitBin, "init", "-q")
	run(gitBin, "check-ignore", "-q", "out/example/001/summary.json")
}

// copyTree copies the regular files under src to dst, skipping an out/
// folder a run of the example may have left there.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	require.NoError(t, filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		if d.IsDir() {
			if rel == "out" {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	}))
}

// files lists the files under dir, relative to it.
func files(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		out = append(out, rel)
		return err
	}))
	return out
}
