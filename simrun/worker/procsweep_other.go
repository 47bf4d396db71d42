//go:build !unix

package worker

import (
	"os"
	"os/exec"
)

// ownGroup leaves the worker in the parent's group: no process groups here.
func ownGroup(*exec.Cmd) {}

// signalOf is os.Interrupt: the only signal other systems can send.
func signalOf(int32) os.Signal { return os.Interrupt }
