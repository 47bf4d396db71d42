package scenarios

import (
	"bytes"
	"fmt"
	"io"
	"os"
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
	// MaxErrors is how many errors an Errors prints; the rest are counted
	// ("and N more").
	MaxErrors = 50
)

// ReadFile reads a scenario or matrix file under the limits: at most
// MaxFileBytes, never more (so /dev/zero or a huge file costs nothing).
func ReadFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return nil, fmt.Errorf("%s: is a directory, not a scenario file", path)
	}
	src, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(src) > MaxFileBytes {
		return nil, fmt.Errorf("%s: larger than %d bytes: a scenario file is at most 1 MiB", path, MaxFileBytes)
	}
	return src, nil
}

// preScan checks source text before it is parsed: it strips a UTF-8 byte
// order mark and rejects binary or UTF-16 input, too many lines and nesting
// deeper than MaxDepth, each with one clear line (never the input itself).
// It is linear in the input and allocates nothing.
func preScan(file string, src []byte, limit int) ([]byte, *Error) {
	src = bytes.TrimPrefix(src, []byte("\xef\xbb\xbf"))
	if len(src) > limit {
		return nil, &Error{File: file, Line: 1, Col: 1, Msg: fmt.Sprintf("larger than %d bytes", limit)}
	}
	if len(src) >= 2 && (src[0] == 0xff && src[1] == 0xfe || src[0] == 0xfe && src[1] == 0xff) {
		return nil, &Error{File: file, Line: 1, Col: 1, Msg: "the file is UTF-16; save it as UTF-8"}
	}
	line, col, depth := 1, 1, 0
	var quote byte      // inside a quoted scalar: its quote character
	var prev byte = ' ' // the last byte that was not a space
	comment, lineStart := false, true
	for i := 0; i < len(src); i++ {
		b := src[i]
		switch {
		case b == 0:
			return nil, &Error{File: file, Line: line, Col: col, Msg: "the file contains a NUL byte: it is binary (or UTF-16), not YAML text"}
		case b >= 0x80:
			r, size := utf8.DecodeRune(src[i:])
			if r == utf8.RuneError && size <= 1 {
				return nil, &Error{File: file, Line: line, Col: col, Msg: "the file is not valid UTF-8 text"}
			}
			i += size - 1
			col++
			lineStart = false
			continue
		case b == '\n':
			line++
			if line > MaxLines {
				return nil, &Error{File: file, Line: line, Col: 1, Msg: fmt.Sprintf("more than %d lines", MaxLines)}
			}
			// A quote left open is a plain scalar's apostrophe (it's) or a
			// multi-line quoted scalar: either way the next line's brackets
			// count, so no line can hide nesting from the scan.
			col, comment, lineStart, quote, prev = 1, false, true, 0, ' '
			continue
		}
		if lineStart && b == ' ' {
			if col > 4*MaxDepth {
				return nil, &Error{File: file, Line: line, Col: col, Msg: fmt.Sprintf("indented more than %d columns (nesting deeper than %d levels)", 4*MaxDepth, MaxDepth)}
			}
			col++
			continue
		}
		lineStart = false
		col++
		p := prev
		if b != ' ' {
			prev = b
		}
		switch {
		case comment:
		case quote != 0:
			if b == quote {
				quote = 0
			} else if b == '\\' && quote == '"' {
				i++
			}
		case b == '#' && (i == 0 || src[i-1] == ' ' || src[i-1] == '\t'):
			comment = true
		case (b == '"' || b == '\'') && (p == ' ' || p == ':' || p == '[' || p == '{' || p == ',' || p == '-'):
			quote = b
		case b == '[' || b == '{':
			if depth++; depth > MaxDepth {
				return nil, &Error{File: file, Line: line, Col: col - 1, Msg: fmt.Sprintf("nesting deeper than %d levels", MaxDepth)}
			}
		case b == ']' || b == '}':
			if depth > 0 {
				depth--
			}
		}
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
