package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The example's own command runs its scenario and meets its expectations
// (the README's command).
func TestExampleScenario(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the command")
	}
	out := filepath.Join(t.TempDir(), "o")
	cmd := exec.Command("go", "run", ".", "-scenario", "example.yaml", "-quiet", "-out", out)
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("go run . -scenario example.yaml: %v", err)
	}
	if _, err := os.Stat(filepath.Join(out, "report.html")); err != nil {
		t.Fatal(err)
	}
}

// The example's binary names itself in what it prints to run: a replay
// line runs custom-election, not simrun, and so does a flag error's hint.
func TestPrintsItsOwnName(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the command")
	}
	dir := t.TempDir()
	exe := filepath.Join(dir, "custom-election")
	build := exec.Command("go", "build", "-o", exe, ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		t.Fatalf("go build: %v", err)
	}
	run := func(args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		cmd := exec.Command(exe, args...)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatal(err)
		}
		return cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()
	}
	code, stdout, stderr := run("-scenario", "example.yaml", "-set", "expect.violations=[double_execution]", "-shrink=false", "-out", filepath.Join(dir, "o"))
	if code != 1 || !strings.Contains(stdout, "replay: custom-election -scenario example.yaml ") {
		t.Errorf("exit %d, want 1 and a replay line naming custom-election:\n%s%s", code, stdout, stderr)
	}
	code, _, stderr = run("-sedes", "3")
	if want := "custom-election: flag provided but not defined: -sedes (did you mean -seeds?); run 'custom-election -h' for usage\n"; code != 2 || stderr != want {
		t.Errorf("exit %d, stderr %q; want 2, %q", code, stderr, want)
	}
}
