package scenario

import (
	"bytes"
	"fmt"
	"unicode/utf8"
)

// preScan checks source text before it is parsed: it strips a UTF-8 byte
// order mark and rejects binary or UTF-16 input, too many lines and nesting
// deeper than MaxDepth, each with one clear line (never the input itself).
// It is linear in the input: one pass, a byte at a time.
func preScan(file string, src []byte, limit int) ([]byte, *Error) {
	src = bytes.TrimPrefix(src, []byte("\xef\xbb\xbf"))
	if len(src) > limit {
		return nil, &Error{File: file, Line: 1, Col: 1, Msg: fmt.Sprintf("larger than %d bytes", limit)}
	}
	if len(src) >= 2 && (src[0] == 0xff && src[1] == 0xfe || src[0] == 0xfe && src[1] == 0xff) {
		return nil, &Error{File: file, Line: 1, Col: 1, Msg: "the file is UTF-16; save it as UTF-8"}
	}
	s := &preScanner{file: file, src: src, line: 1, col: 1, prev: ' ', lineStart: true}
	for i := 0; i < len(src); i++ {
		var err *Error
		if i, err = s.step(i); err != nil {
			return nil, err
		}
	}
	return src, nil
}

// preScanner is preScan's position in the text and what it has counted.
type preScanner struct {
	file string
	src  []byte
	// line and col are where the scan is (1-based; col counts runes).
	line, col     int
	depth, values int  // open flow collections; values (, : -) so far
	quote         byte // inside a quoted scalar: its quote character
	prev          byte // the last byte that was not a space
	comment       bool // the rest of the line is a comment
	lineStart     bool // only spaces so far on this line
	// Keys per mapping: block mappings by indentation (a stack of the
	// open mappings' indents and key counts), flow mappings by nesting.
	blocks  []preScanBlock
	flows   []int // per open flow collection: keys so far (-1 for a list)
	indent  int   // the current line's indentation
	lineKey bool  // the current line's first key is counted
}

// preScanBlock is an open block mapping: its indent and its keys so far.
type preScanBlock struct{ indent, keys int }

// fail is an error at the scan's line and column col.
func (s *preScanner) fail(col int, format string, args ...any) *Error {
	return &Error{File: s.file, Line: s.line, Col: col, Msg: fmt.Sprintf(format, args...)}
}

// step scans the byte at i and returns the index of the last byte it
// consumed (a multi-byte rune or an escape takes more than one). Bytes that
// are not text, line ends and indentation are handled here; the rest is
// syntax.
func (s *preScanner) step(i int) (int, *Error) {
	b := s.src[i]
	switch {
	case b == 0:
		return i, s.fail(s.col, "the file contains a NUL byte: it is binary (or UTF-16), not YAML text")
	case b >= 0x80:
		r, size := utf8.DecodeRune(s.src[i:])
		if r == utf8.RuneError && size <= 1 {
			return i, s.fail(s.col, "the file is not valid UTF-8 text")
		}
		s.col++
		s.lineStart = false
		return i + size - 1, nil
	case b == '\n':
		s.line++
		if s.line > MaxLines {
			return i, s.fail(1, "more than %d lines", MaxLines)
		}
		// A quote left open is a plain scalar's apostrophe (it's) or a
		// multi-line quoted scalar: either way the next line's brackets
		// count, so no line can hide nesting from the scan.
		s.col, s.comment, s.lineStart, s.quote, s.prev = 1, false, true, 0, ' '
		s.lineKey = false
		return i, nil
	}
	if s.lineStart && b == ' ' {
		if s.col > 4*MaxDepth {
			return i, s.fail(s.col, "indented more than %d columns (nesting deeper than %d levels)", 4*MaxDepth, MaxDepth)
		}
		s.col++
		return i, nil
	}
	if s.lineStart {
		s.startLine(b)
	}
	s.lineStart = false
	s.col++
	p := s.prev
	if b != ' ' {
		s.prev = b
	}
	return s.syntax(i, b, p)
}

// startLine notes the indentation of a line whose first byte is b. A new
// line at this indent closes the deeper block mappings; a list item opens
// a fresh one for its own keys.
func (s *preScanner) startLine(b byte) {
	s.indent = s.col - 1
	if b == '#' || len(s.flows) > 0 {
		return
	}
	for len(s.blocks) > 0 && (s.blocks[len(s.blocks)-1].indent > s.indent || b == '-' && s.blocks[len(s.blocks)-1].indent == s.indent) {
		s.blocks = s.blocks[:len(s.blocks)-1]
	}
}

// syntax scans byte b at i (p is the byte before it that was not a space):
// comments and quoted scalars are skipped, separators count as values, a
// colon as a key of the open mapping, brackets as nesting.
func (s *preScanner) syntax(i int, b, p byte) (int, *Error) {
	src := s.src
	switch {
	case s.comment:
	case s.quote != 0:
		if b == s.quote {
			s.quote = 0
		} else if b == '\\' && s.quote == '"' {
			i++
		}
	case b == '#' && (i == 0 || src[i-1] == ' ' || src[i-1] == '\t' || src[i-1] == '\n'):
		s.comment = true
	case (b == '"' || b == '\'') && (p == ' ' || p == ':' || p == '[' || p == '{' || p == ',' || p == '-'):
		s.quote = b
	case b == ',' || b == ':' || (b == '-' && (p == ' ' || p == '-')):
		if s.values++; s.values > MaxValues {
			return i, s.fail(s.col-1, "more than %d values", MaxValues)
		}
		if b == ':' {
			return i, s.key()
		}
	case b == '[' || b == '{':
		if s.depth++; s.depth > MaxDepth {
			return i, s.fail(s.col-1, "nesting deeper than %d levels", MaxDepth)
		}
		k := -1
		if b == '{' {
			k = 0
		}
		s.flows = append(s.flows, k)
	case b == ']' || b == '}':
		if s.depth > 0 {
			s.depth--
		}
		if len(s.flows) > 0 {
			s.flows = s.flows[:len(s.flows)-1]
		}
	}
	return i, nil
}

// key counts a colon as a key of the innermost open mapping: a flow
// mapping's, else (for the line's first key only: a: b: c is not three)
// the block mapping at the line's indent, opened if none is.
func (s *preScanner) key() *Error {
	keys := 0
	switch {
	case len(s.flows) > 0 && s.flows[len(s.flows)-1] >= 0:
		s.flows[len(s.flows)-1]++
		keys = s.flows[len(s.flows)-1]
	case len(s.flows) == 0 && !s.lineKey:
		s.lineKey = true
		if len(s.blocks) == 0 || s.blocks[len(s.blocks)-1].indent < s.indent {
			s.blocks = append(s.blocks, preScanBlock{indent: s.indent})
		}
		s.blocks[len(s.blocks)-1].keys++
		keys = s.blocks[len(s.blocks)-1].keys
	}
	if keys > MaxKeys {
		return s.fail(s.col-1, "a mapping with more than %d keys", MaxKeys)
	}
	return nil
}
