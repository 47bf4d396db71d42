package outdir

import "fmt"

// refusal is a path the contract will not write, said in words for the
// user: the command reports it as a usage error (exit status 2).
type refusal struct{ msg string }

// Error implements error.
func (e refusal) Error() string { return e.msg }

// usagef is a refusal with a formatted message.
func usagef(format string, args ...any) error { return refusal{fmt.Sprintf(format, args...)} }
