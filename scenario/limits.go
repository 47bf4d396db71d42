package scenario

import (
	"fmt"
	"io"
	"unicode/utf8"
)

// The input limits, enforced before the YAML parser sees a byte: a scenario
// file, a matrix file and a -set value are read only if they are text of at
// most these sizes. Scenario files are a few kilobytes; a materialized month
// of nemesis faults is a few hundred.
const (
	// MaxFileBytes is the largest scenario (or matrix) file read.
	MaxFileBytes = 1 << 20
	// MaxSetBytes is the largest -set value.
	MaxSetBytes = 64 << 10
	// MaxLines is the most lines a file may have.
	MaxLines = 50_000
	// MaxDepth is the deepest nesting of flow collections ([ and {) or of
	// block indentation (in levels of at least one space) a file may have;
	// the tree the loader builds has the same bound.
	MaxDepth = 64
	// MaxValues bounds the values (scalars, keys, list items) a file may
	// hold, counted from its separators before parsing: the YAML parser
	// takes about a kilobyte per token, so this keeps it under 100 MB.
	MaxValues = 50_000
	// MaxKeys bounds the keys of one mapping (the YAML parser is
	// quadratic in them: 49,000 keys took 5 s).
	MaxKeys = 1000
	// MaxSets is the most -set overrides one load takes (checked before
	// any is read; each costs the length of its path and value).
	MaxSets = 10_000
	// MaxErrors is how many errors an Errors prints; the rest are counted
	// ("and N more").
	MaxErrors = 50
)

// ReadFile reads a scenario or matrix file under the limits: at most
// MaxFileBytes, never more (so a huge file costs nothing), of a regular
// file only (OpenRegular: a named pipe or /dev/zero is refused unread).
func ReadFile(path string) ([]byte, error) {
	f, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	src, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(src) > MaxFileBytes {
		return nil, fmt.Errorf("%s: larger than %d bytes: a scenario file is at most 1 MiB", path, MaxFileBytes)
	}
	return src, nil
}

// CheckYAML checks that src is one YAML document within the input limits
// (size, lines, nesting, and at most 100,000 nodes once aliases are
// expanded), without reading it as a scenario: for other files simrun reads,
// such as -matrix files, before a YAML decoder expands them.
func CheckYAML(file string, src []byte) error {
	if _, perr := parseYAML(file, src, MaxFileBytes); perr != nil {
		return Errors{perr}
	}
	return nil
}

// MaxNameLen is the longest scenario or matrix name.
const MaxNameLen = 64

// ValidName checks a scenario or matrix name: simrun names its default
// output folder after it (out/<name>), so it must be one safe path
// element: 1 to 64 of the characters A–Z, a–z, 0–9, '.', '_' and '-', not
// starting with '.' (no "..", no hidden folder) and with no separator.
func ValidName(name string) error {
	if name == "" {
		return fmt.Errorf("empty: a name is 1 to %d of A-Z a-z 0-9 . _ -", MaxNameLen)
	}
	if len(name) > MaxNameLen {
		return fmt.Errorf("%q is longer than %d characters", name, MaxNameLen)
	}
	if name[0] == '.' {
		return fmt.Errorf("%q starts with '.': simrun names its output folder after it", name)
	}
	// By rune, so the character named is the one written (U+202E, not
	// its first byte's "â"); a byte that is not UTF-8 is shown as \xNN.
	for i, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			_, size := utf8.DecodeRuneInString(name[i:])
			return fmt.Errorf("%q contains %q: a name is 1 to %d of A-Z a-z 0-9 . _ - (it names the output folder)", name, name[i:i+size], MaxNameLen)
		}
	}
	return nil
}
