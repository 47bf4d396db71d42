package scenario

import (
	"bytes"
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

// preScan checks source text before it is parsed: it strips a UTF-8 byte
// order mark and rejects binary or UTF-16 input, too many lines and nesting
// deeper than MaxDepth, each with one clear line (never the input itself).
// It is linear in the input.
func preScan(file string, src []byte, limit int) ([]byte, *Error) {
	src = bytes.TrimPrefix(src, []byte("\xef\xbb\xbf"))
	if len(src) > limit {
		return nil, &Error{File: file, Line: 1, Col: 1, Msg: fmt.Sprintf("larger than %d bytes", limit)}
	}
	if len(src) >= 2 && (src[0] == 0xff && src[1] == 0xfe || src[0] == 0xfe && src[1] == 0xff) {
		return nil, &Error{File: file, Line: 1, Col: 1, Msg: "the file is UTF-16; save it as UTF-8"}
	}
	line, col, depth, values := 1, 1, 0, 0
	var quote byte      // inside a quoted scalar: its quote character
	var prev byte = ' ' // the last byte that was not a space
	comment, lineStart := false, true
	// Keys per mapping: block mappings by indentation (a stack of the
	// open mappings' indents and key counts), flow mappings by nesting.
	type open struct{ indent, keys int }
	var blocks []open
	var flows []int // per open flow collection: keys so far (-1 for a list)
	indent, lineKey := 0, false
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
			lineKey = false
			continue
		}
		if lineStart && b == ' ' {
			if col > 4*MaxDepth {
				return nil, &Error{File: file, Line: line, Col: col, Msg: fmt.Sprintf("indented more than %d columns (nesting deeper than %d levels)", 4*MaxDepth, MaxDepth)}
			}
			col++
			continue
		}
		if lineStart {
			indent = col - 1
			if b != '#' && len(flows) == 0 {
				// A new line at this indent closes the deeper mappings; a
				// list item opens a fresh one for its own keys.
				for len(blocks) > 0 && (blocks[len(blocks)-1].indent > indent || b == '-' && blocks[len(blocks)-1].indent == indent) {
					blocks = blocks[:len(blocks)-1]
				}
			}
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
		case b == '#' && (i == 0 || src[i-1] == ' ' || src[i-1] == '\t' || src[i-1] == '\n'):
			comment = true
		case (b == '"' || b == '\'') && (p == ' ' || p == ':' || p == '[' || p == '{' || p == ',' || p == '-'):
			quote = b
		case b == ',' || b == ':' || (b == '-' && (p == ' ' || p == '-')):
			if values++; values > MaxValues {
				return nil, &Error{File: file, Line: line, Col: col - 1, Msg: fmt.Sprintf("more than %d values", MaxValues)}
			}
			if b != ':' {
				break
			}
			keys := 0
			switch {
			case len(flows) > 0 && flows[len(flows)-1] >= 0:
				flows[len(flows)-1]++
				keys = flows[len(flows)-1]
			case len(flows) == 0 && !lineKey:
				lineKey = true // the line's first key; a: b: c is not three
				if len(blocks) == 0 || blocks[len(blocks)-1].indent < indent {
					blocks = append(blocks, open{indent: indent})
				}
				blocks[len(blocks)-1].keys++
				keys = blocks[len(blocks)-1].keys
			}
			if keys > MaxKeys {
				return nil, &Error{File: file, Line: line, Col: col - 1, Msg: fmt.Sprintf("a mapping with more than %d keys", MaxKeys)}
			}
		case b == '[' || b == '{':
			if depth++; depth > MaxDepth {
				return nil, &Error{File: file, Line: line, Col: col - 1, Msg: fmt.Sprintf("nesting deeper than %d levels", MaxDepth)}
			}
			k := -1
			if b == '{' {
				k = 0
			}
			flows = append(flows, k)
		case b == ']' || b == '}':
			if depth > 0 {
				depth--
			}
			if len(flows) > 0 {
				flows = flows[:len(flows)-1]
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
