package main

import (
	"os"
	"os/exec"
	"path/filepath"
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
