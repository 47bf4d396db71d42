package doccmds

import (
	"path/filepath"
	"testing"
)

// TestListCommands prints every command found and its class (go test -run
// TestListCommands -v): what TestDocCommands will run, without running it.
func TestListCommands(t *testing.T) {
	root, _ := filepath.Abs("../..")
	for _, c := range repoCommands(t, root) {
		out := ""
		if c.Stdout != "" {
			out = " [stdout checked]"
		}
		t.Logf("%-8s %-32s (%s) %s  %s%s", c.Class, c.Where(), c.Dir, c.Text, c.Reason, out)
	}
}
