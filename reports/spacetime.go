package reports

import (
	"encoding/json"
	"html/template"
)

// MaxSpaceTimeMessages is the most messages the report's space-time
// diagram draws: a minute of a five-node Raft cluster (about 10,000
// messages) fits; of a longer run it draws this many, from its start or,
// when the first fault comes later, from shortly before that fault, and a
// note above the diagram says which.
const MaxSpaceTimeMessages = 20000

// MaxSpaceTimeTimers is the most timer firings the diagram draws: a run
// whose timers far outnumber its messages (a one-node cluster fires its
// timers for 999 hours and sends nothing) is drawn up to its
// MaxSpaceTimeTimers-th firing, and a note says so; without the cap the
// featured run kept every firing (gigabytes).
const MaxSpaceTimeTimers = 2 * MaxSpaceTimeMessages

// SpaceTime is the featured run's space-time diagram: one lane per node,
// messages as arrows from their sending to their delivery or loss, timer
// firings, leadership tenures and faults (the report draws it, zoomable,
// in the browser).
type SpaceTime struct {
	Nodes []string `json:"nodes"`
	// StartMs and EndMs bound what is drawn: the whole run, or, when its
	// messages outnumber the cap, from its start (StartMs 0) or from the
	// lead-up to its first fault up to the last message kept.
	StartMs float64 `json:"start_ms,omitempty"`
	EndMs   float64 `json:"end_ms"`
	// Messages are at most MaxSpaceTimeMessages messages, by delivery or
	// loss: the run's first, or those around its first fault when it comes
	// later (simrun keeps which); Total counts every message of the run.
	Messages []STMessage `json:"messages"`
	Total    int         `json:"total"`
	Timers   []STTimer   `json:"timers"`
	// TimersCut says the diagram stops at its MaxSpaceTimeTimers-th timer
	// firing (EndMs), though the run went on.
	TimersCut bool   `json:"timers_cut,omitempty"`
	Tenures   []Span `json:"tenures"`
	Faults    []Span `json:"faults"`
}

// STMessage is one message: from and to are lanes (indices into Nodes).
type STMessage struct {
	From   int     `json:"f"`
	To     int     `json:"t"`
	SentMs float64 `json:"s"`
	AtMs   float64 `json:"a"`
	Kind   string  `json:"k"`
	// Fate is "delivered", "dropped" (Why says why) or "duplicate" (a
	// second delivery of one send).
	Fate string `json:"x"`
	Why  string `json:"w,omitempty"`
}

// STTimer is a timer firing on a lane.
type STTimer struct {
	Node int     `json:"n"`
	AtMs float64 `json:"a"`
	Name string  `json:"k"`
}

// Truncated reports whether messages were left out.
func (st *SpaceTime) Truncated() bool { return st != nil && st.Total > len(st.Messages) }

// spaceTimeJSON is st as JSON for the report's script, safe inside a
// <script> element.
func spaceTimeJSON(st *SpaceTime) (template.JS, error) {
	b, err := json.Marshal(st)
	if err != nil {
		return "", err
	}
	return template.JS(b), nil
}
