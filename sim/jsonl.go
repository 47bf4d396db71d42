package sim

import (
	"io"
	"strconv"
	"time"
	"unicode/utf8"
)

// jsonlFlushAt is the buffered size at which a JSONLWriter hands its bytes to
// the underlying writer.
const jsonlFlushAt = 64 << 10

// JSONLWriter is a Sink that streams every trace record as one JSON object per
// line (JSON Lines) to an io.Writer. Output is buffered; call Flush after the
// run (and Err, or Flush's result, to learn about write errors). Records are
// formatted by hand into a reused buffer, so a warm writer allocates nothing
// per record, and the same seed gives byte-identical output.
//
// Each line holds these fields, in this order; a field that is zero or does
// not apply to the record's type is omitted, so an absent number means 0:
//
//	t_ns     true time in nanoseconds (always)
//	t        true time as seconds with millisecond precision, "12.300s" (always)
//	type     RecordType name: "deliver", "lead", … (always)
//	node     the subject node's name (absent for run-wide records)
//	peer     the other node's name: sender of a delivery or drop, believed leader
//	         (absent when None, so a "believe" without peer means "no leader")
//	kind     message kind name (deliveries and drops)
//	reason   DropReason name (drops)
//	sent_ns  true send time in nanoseconds (deliveries and drops, always)
//	epoch    Record.Epoch (always for lead, step_down, believe)
//	token    fencing token (always for lead and step_down)
//	a, b, c  the record's numeric arguments (see the RecordType constants)
//	mono_ns  the node's monotonic clock reading (records that carry clock readings)
//	wall     the node's wall clock reading, RFC 3339 with nanoseconds, UTC
//	name     Record.Name (faults, effects)
//	detail   Record.Detail
//
// A JSONLWriter is not safe for concurrent use; like the Sim it serves, it is
// driven by one goroutine.
type JSONLWriter struct {
	w     io.Writer
	s     *Sim
	buf   []byte
	kinds []string // message kind names, indexed by MsgKind
	err   error
}

// NewJSONLWriter returns a JSONLWriter that writes to w and names nodes with
// s.NodeName. Subscribe it with s.AddSink before the run and Flush it after.
func NewJSONLWriter(w io.Writer, s *Sim) *JSONLWriter {
	return &JSONLWriter{w: w, s: s, buf: make([]byte, 0, jsonlFlushAt+1024), kinds: kindNames()}
}

// Record implements Sink: it appends r as one line. After a write error it
// does nothing (see Err).
func (j *JSONLWriter) Record(r *Record) {
	if j.err != nil {
		return
	}
	j.buf = j.appendRecord(j.buf, r)
	if len(j.buf) >= jsonlFlushAt {
		j.write()
	}
}

// Flush writes any buffered lines to the underlying writer and returns the
// first write error seen so far, if any.
func (j *JSONLWriter) Flush() error {
	if j.err == nil && len(j.buf) > 0 {
		j.write()
	}
	return j.err
}

// Err returns the first error the underlying writer returned, or nil. Records
// after an error are discarded.
func (j *JSONLWriter) Err() error { return j.err }

func (j *JSONLWriter) write() {
	n, err := j.w.Write(j.buf)
	if err == nil && n < len(j.buf) {
		err = io.ErrShortWrite
	}
	j.err = err
	j.buf = j.buf[:0]
}

// kindName returns the registered name of k from the snapshot, refreshing it
// once if k was registered after the writer was made.
func (j *JSONLWriter) kindName(k MsgKind) string {
	if int(k) >= len(j.kinds) {
		j.kinds = kindNames()
		if int(k) >= len(j.kinds) {
			return k.String()
		}
	}
	return j.kinds[k]
}

// carriesClocks reports whether records like r are stamped with the
// subject node's clock readings.
func carriesClocks(r *Record) bool {
	switch r.Type {
	case RecStart, RecPersist, RecPersistDone, RecCrash, RecPause, RecResume,
		RecLead, RecStepDown, RecBelieve, RecEffect:
		return true
	case RecFault, RecNote:
		return r.Node != None
	}
	return false
}

func (j *JSONLWriter) appendRecord(b []byte, r *Record) []byte {
	b = append(b, `{"t_ns":`...)
	b = strconv.AppendInt(b, int64(r.At), 10)
	b = append(b, `,"t":"`...)
	b = AppendSeconds(b, int64(r.At))
	b = append(b, `","type":`...)
	b = appendJSONString(b, r.Type.String())
	if r.Node != None {
		b = append(b, `,"node":`...)
		b = appendJSONString(b, j.s.NodeName(r.Node))
	}
	if r.Peer != None {
		b = append(b, `,"peer":`...)
		b = appendJSONString(b, j.s.NodeName(r.Peer))
	}
	if r.Kind != 0 {
		b = append(b, `,"kind":`...)
		b = appendJSONString(b, j.kindName(r.Kind))
	}
	if r.Reason != DropNone {
		b = append(b, `,"reason":`...)
		b = appendJSONString(b, r.Reason.String())
	}
	message := r.Type == RecDeliver || r.Type == RecDrop
	if message {
		b = appendIntField(b, `,"sent_ns":`, int64(r.SentAt))
	}
	leader := r.Type == RecLead || r.Type == RecStepDown
	if r.Epoch != 0 || leader || r.Type == RecBelieve {
		b = appendIntField(b, `,"epoch":`, r.Epoch)
	}
	if r.Token != 0 || leader {
		b = appendIntField(b, `,"token":`, r.Token)
	}
	if r.Type == RecTimer {
		if name, ok := j.s.timerName(r.Node, r.Timer().Tag); ok {
			b = append(b, `,"timer":`...)
			b = appendJSONString(b, name)
		}
	}
	if r.A != 0 {
		b = appendIntField(b, `,"a":`, r.A)
	}
	if r.B != 0 {
		b = appendIntField(b, `,"b":`, r.B)
	}
	if r.C != 0 {
		b = appendIntField(b, `,"c":`, r.C)
	}
	if carriesClocks(r) || r.Mono != 0 {
		b = appendIntField(b, `,"mono_ns":`, int64(r.Mono))
	}
	if r.Wall != 0 {
		b = append(b, `,"wall":"`...)
		b = time.Unix(0, r.Wall).UTC().AppendFormat(b, time.RFC3339Nano)
		b = append(b, '"')
	}
	if r.Name != "" {
		b = append(b, `,"name":`...)
		b = appendJSONString(b, r.Name)
	}
	if r.Detail != "" {
		b = append(b, `,"detail":`...)
		b = appendJSONString(b, r.Detail)
	}
	return append(b, '}', '\n')
}

func appendIntField(b []byte, key string, v int64) []byte {
	b = append(b, key...)
	return strconv.AppendInt(b, v, 10)
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a quoted JSON string. It escapes exactly as
// encoding/json does with HTML escaping off: quote, backslash and control
// characters (\b \f \n \r \t short forms, others as \u00XX), U+2028 and U+2029
// (which break JavaScript parsers), and each invalid UTF-8 byte as \ufffd, so
// the output is always valid JSON.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
