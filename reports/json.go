package reports

import (
	"encoding/json"
	"fmt"
	"io"
)

// WriteJSON writes s as indented JSON. Keys come in struct-field order and
// map keys sorted (encoding/json's rule), so equal summaries give equal
// bytes. An empty Schema is written as the current one; any other schema
// is refused.
func WriteJSON(w io.Writer, s *Summary) error {
	if s == nil {
		return fmt.Errorf("reports: WriteJSON: nil summary")
	}
	if s.Schema != Schema && s.Schema != "" {
		return fmt.Errorf("reports: summary schema %q, want %q", s.Schema, Schema)
	}
	out := s
	if s.Schema == "" {
		c := *s
		c.Schema = Schema
		out = &c
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	// Explanations hold "→" and "<"; keep them readable in the file.
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		return fmt.Errorf("reports: %w", err)
	}
	return nil
}

// MaxSummaryBytes bounds a summary ReadJSON reads: simrun's are well under
// a megabyte (docs/output.md), so a bigger file is not one.
const MaxSummaryBytes = 64 << 20

// ReadJSON reads a summary WriteJSON wrote and checks its schema. Unknown
// fields are ignored: the schema only changes when a field changes meaning
// or disappears, so a newer writer's additions are safe to skip.
func ReadJSON(r io.Reader) (*Summary, error) {
	var s Summary
	lr := &io.LimitedReader{R: r, N: MaxSummaryBytes + 1}
	dec := json.NewDecoder(lr)
	err := dec.Decode(&s)
	if lr.N <= 0 {
		return nil, fmt.Errorf("reports: reading summary: larger than %d bytes (MaxSummaryBytes): not a summary simrun wrote", MaxSummaryBytes)
	}
	if err != nil {
		return nil, fmt.Errorf("reports: reading summary: %w", err)
	}
	if s.Schema != Schema {
		return nil, fmt.Errorf("reports: summary schema %q, want %q", s.Schema, Schema)
	}
	return &s, nil
}
