// Package termsafe keeps text that came from input (scenario descriptions,
// names, -set keys and values, paths) from acting on a terminal: control
// characters, bidirectional overrides and other invisible runes are shown
// as escapes (\x1b, \u202e) instead of being written raw, where an ESC or
// OSC sequence would move the cursor, clear the screen or set the window
// title, and U+202E would reverse the text after it.
//
// simrun writes all it prints through a Writer, so no path from input to
// the terminal bypasses it.
package termsafe

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Clean is s with every rune Writer would escape escaped; newline and tab
// are escaped too (a field is one line).
func Clean(s string) string {
	if safeString(s, false) {
		return s
	}
	var b strings.Builder
	appendClean(&b, []byte(s), false)
	return b.String()
}

// keep reports whether r is written as it is: a graphic rune or a space
// (tab, newline and, for Writer, carriage return: simrun's own layout and
// progress line use them), and not a bidirectional control.
func keep(r rune, layout bool) bool {
	switch {
	case r == '\n' || r == '\t' || r == '\r':
		return layout
	case r < 0x20 || r == 0x7f:
		return false
	case r < 0x7f:
		return true
	case unicode.Is(unicode.Bidi_Control, r), r == 0x2028, r == 0x2029:
		return false
	}
	return unicode.IsGraphic(r) || r == ' '
}

// safeString reports whether s needs no escape (the common case, with no
// allocation).
func safeString(s string, layout bool) bool {
	for _, r := range s {
		if r == utf8.RuneError || !keep(r, layout) {
			return false
		}
	}
	return true
}

// appendClean writes p to b with every rune keep refuses escaped: a
// control byte or a byte that is not UTF-8 as \xNN, any other rune as
// \uXXXX (which a JSON string reads as the same rune, so JSON passing
// through stays valid and equal).
func appendClean(b *strings.Builder, p []byte, layout bool) {
	for len(p) > 0 {
		r, size := utf8.DecodeRune(p)
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(b, `\x%02x`, p[0])
		case keep(r, layout):
			b.Write(p[:size])
		case r < 0x20:
			fmt.Fprintf(b, `\x%02x`, r)
		case r > 0xffff:
			fmt.Fprintf(b, `\U%08x`, r)
		default:
			fmt.Fprintf(b, `\u%04x`, r)
		}
		p = p[size:]
	}
}

// Writer escapes, as Clean does, what is written to it before passing it
// on, keeping newlines, tabs and carriage returns. A rune split across two
// writes is held until the rest arrives (Flush writes a held part, escaped).
// It is safe for concurrent use.
type Writer struct {
	mu   sync.Mutex
	w    io.Writer
	tail []byte // the start of a rune the last write ended in
}

// NewWriter returns a Writer writing to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Unwrap is the writer written to (to ask it, say, whether it is a
// terminal).
func (t *Writer) Unwrap() io.Writer { return t.w }

// Write escapes p and writes it; it reports len(p) written on success.
func (t *Writer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	buf := p
	if len(t.tail) > 0 {
		buf = append(append([]byte(nil), t.tail...), p...)
		t.tail = nil
	}
	// Hold an incomplete rune at the end for the next write.
	if cut := incompleteTail(buf); cut < len(buf) {
		t.tail = append(t.tail, buf[cut:]...)
		buf = buf[:cut]
	}
	if safeBytes(buf) {
		if _, err := t.w.Write(buf); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	var b strings.Builder
	appendClean(&b, buf, true)
	if _, err := io.WriteString(t.w, b.String()); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes a held incomplete rune, escaped.
func (t *Writer) Flush() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.tail) == 0 {
		return nil
	}
	var b strings.Builder
	appendClean(&b, t.tail, true)
	t.tail = nil
	_, err := io.WriteString(t.w, b.String())
	return err
}

// safeBytes is safeString for bytes, with layout kept.
func safeBytes(p []byte) bool {
	for i := 0; i < len(p); {
		c := p[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 && c != '\n' && c != '\t' && c != '\r') || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(p[i:])
		if r == utf8.RuneError || !keep(r, true) {
			return false
		}
		i += size
	}
	return true
}

// incompleteTail is where an incomplete UTF-8 sequence at the end of p
// starts (len(p) if there is none).
func incompleteTail(p []byte) int {
	for i := len(p) - 1; i >= 0 && i >= len(p)-utf8.UTFMax+1; i-- {
		if utf8.RuneStart(p[i]) {
			if !utf8.FullRune(p[i:]) {
				return i
			}
			return len(p)
		}
	}
	return len(p)
}
