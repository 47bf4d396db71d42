//go:build !unix

package worker

// readSecret: no system here passes a worker its descriptors
// (exec.Cmd.ExtraFiles is unix's), so no process is a worker.
func readSecret(int) (string, bool) { return "", false }
