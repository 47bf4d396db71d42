//go:build !unix

package simrun

import "os"

// alive reports whether process pid may exist. Without a portable probe
// it says yes, so another process's temporaries are never removed: a
// killed run's leftovers stay (named .<name>.simrun-tmp-<pid>-…) rather
// than risk deleting a live run's.
func alive(pid int) bool { return true }

// umask is the file mode creation mask: none outside Unix (Windows file
// modes carry only the read-only bit).
func umask() os.FileMode { return 0 }
