package sim_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/sim"
)

// exportPerfetto runs the export workload for seed and returns its Perfetto
// export and records.
func exportPerfetto(t testing.TB, seed uint64) ([]byte, []sim.Record) {
	s, recs := exportRun(seed)
	var out bytes.Buffer
	require.NoError(t, sim.WritePerfetto(&out, s, recs))
	return out.Bytes(), recs
}

// exportTraceFile is the parsed trace-event JSON. Numbers stay json.Number so
// the tests can check their text (three decimals at most: nanoseconds).
type exportTraceFile struct {
	TraceEvents     []exportEvent `json:"traceEvents"`
	DisplayTimeUnit string        `json:"displayTimeUnit"`
}

type exportEvent struct {
	Name string                     `json:"name"`
	Cat  string                     `json:"cat"`
	Ph   string                     `json:"ph"`
	Pid  int                        `json:"pid"`
	Tid  int                        `json:"tid"`
	Ts   json.Number                `json:"ts"`
	Dur  json.Number                `json:"dur"`
	S    string                     `json:"s"`
	ID   *int64                     `json:"id"`
	Bp   string                     `json:"bp"`
	Args map[string]json.RawMessage `json:"args"`
}

// exportNs converts a microsecond json.Number with at most three decimals to
// nanoseconds exactly.
func exportNs(t *testing.T, n json.Number) int64 {
	t.Helper()
	s := string(n)
	whole, frac, _ := strings.Cut(s, ".")
	require.LessOrEqual(t, len(frac), 3, "more than ns precision: %s", s)
	for len(frac) < 3 {
		frac += "0"
	}
	var us, ns int64
	_, err := fmt.Sscan(whole, &us)
	require.NoError(t, err, s)
	_, err = fmt.Sscan(frac, &ns)
	require.NoError(t, err, s)
	return us*1000 + ns
}

func exportParse(t *testing.T, out []byte) exportTraceFile {
	t.Helper()
	var f exportTraceFile
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.UseNumber()
	dec.DisallowUnknownFields()
	require.NoError(t, dec.Decode(&f))
	return f
}

func exportArgStr(t *testing.T, e exportEvent, k string) string {
	t.Helper()
	raw, ok := e.Args[k]
	require.True(t, ok, "event %q has no arg %q", e.Name, k)
	var s string
	require.NoError(t, json.Unmarshal(raw, &s))
	return s
}

// TestExportPerfettoGolden pins the Chrome/Perfetto trace-event export of the
// export workload (docs/engine.md, "The trace": exported to the Perfetto
// trace-event format so a person can scroll a run's timeline).
func TestExportPerfettoGolden(t *testing.T) {
	out, _ := exportPerfetto(t, 7)
	exportGolden(t, "export_trace.perfetto.golden", out)
}

// TestExportPerfettoDeterministic checks that exporting the same seed twice
// gives identical bytes.
func TestExportPerfettoDeterministic(t *testing.T) {
	a, _ := exportPerfetto(t, 3)
	b, _ := exportPerfetto(t, 3)
	require.True(t, bytes.Equal(a, b))
}

// TestExportPerfettoStructure checks the export is a well-formed trace:
// metadata names every track, slices have non-negative durations, events are
// in time order, flows pair up and land on message slices, and the workload's
// tenures, pauses, down time and faults appear where the fault schedule put
// them.
func TestExportPerfettoStructure(t *testing.T) {
	out, recs := exportPerfetto(t, 7)
	f := exportParse(t, out)
	assert.Equal(t, "ms", f.DisplayTimeUnit)
	require.NotEmpty(t, f.TraceEvents)

	threads := map[int]string{}
	sortIdx := map[int]bool{}
	var procName string
	type flowEnd struct {
		ts    int64
		tid   int
		count int
	}
	starts, finishes := map[int64]*flowEnd{}, map[int64]*flowEnd{}
	msgSlices := map[string]bool{} // "tid@ns" of zero-length message slices
	var lastTs int64 = -1
	var leaderSlices, paused, down, globals int
	metaDone := false
	for i, e := range f.TraceEvents {
		assert.Equal(t, 1, e.Pid, "event %d", i)
		if e.Ph == "M" {
			require.False(t, metaDone, "metadata after events (event %d)", i)
			switch e.Name {
			case "thread_name":
				threads[e.Tid] = exportArgStr(t, e, "name")
			case "thread_sort_index":
				sortIdx[e.Tid] = true
			case "process_name":
				procName = exportArgStr(t, e, "name")
			default:
				t.Errorf("unexpected metadata %q", e.Name)
			}
			continue
		}
		metaDone = true
		ts := exportNs(t, e.Ts)
		assert.GreaterOrEqual(t, ts, lastTs, "event %d (%s) out of time order", i, e.Name)
		lastTs = ts
		switch e.Ph {
		case "X":
			dur := exportNs(t, e.Dur)
			assert.GreaterOrEqual(t, dur, int64(0), e.Name)
			switch {
			case e.Cat == "msg":
				assert.Zero(t, dur)
				msgSlices[fmt.Sprint(e.Tid, "@", ts)] = true
			case strings.HasPrefix(e.Name, "leader e="):
				leaderSlices++
			case e.Name == "paused":
				paused++
				assert.Equal(t, "n2", threads[e.Tid])
				assert.Equal(t, int64(100*time.Millisecond), ts)
				assert.Equal(t, int64(80*time.Millisecond), dur)
			case e.Name == "down":
				down++
				assert.Equal(t, "n1", threads[e.Tid])
				assert.Equal(t, int64(500*time.Millisecond), ts)
				assert.Equal(t, int64(100*time.Millisecond), dur)
			}
		case "i":
			assert.Empty(t, e.Dur)
			if e.S == "g" {
				globals++
				assert.Equal(t, "faults", threads[e.Tid])
			} else {
				assert.Equal(t, "t", e.S)
			}
		case "s", "f":
			require.NotNil(t, e.ID)
			m := starts
			if e.Ph == "f" {
				m = finishes
				assert.Equal(t, "e", e.Bp)
			}
			if m[*e.ID] == nil {
				m[*e.ID] = &flowEnd{ts: ts, tid: e.Tid}
			}
			m[*e.ID].count++
			assert.True(t, msgSlices[fmt.Sprint(e.Tid, "@", ts)], "flow %d end has no message slice to bind to", *e.ID)
		default:
			t.Errorf("unexpected phase %q", e.Ph)
		}
		_, named := threads[e.Tid]
		assert.True(t, named, "tid %d has no thread_name", e.Tid)
	}
	assert.Equal(t, "electsim seed=7", procName)
	assert.Equal(t, map[int]string{1: "n1", 2: "n2", 3: "store", 4: "faults"}, threads)
	assert.Len(t, sortIdx, 4)

	var delivers, leads, faults int
	for _, r := range recs {
		switch r.Type {
		case sim.RecDeliver:
			delivers++
		case sim.RecLead:
			leads++
		case sim.RecFault, sim.RecEnd:
			faults++
		}
	}
	require.Len(t, starts, delivers, "one flow per delivery")
	require.Len(t, finishes, delivers)
	for id, s := range starts {
		fin := finishes[id]
		require.NotNil(t, fin, "flow %d never finishes", id)
		assert.Equal(t, 1, s.count)
		assert.Equal(t, 1, fin.count)
		assert.LessOrEqual(t, s.ts, fin.ts, "flow %d goes back in time", id)
	}
	assert.Equal(t, leads, leaderSlices, "one tenure slice per lead record")
	assert.Equal(t, 3, leads, "n1 leads at 0, after round 6, and after its restart")
	assert.Equal(t, 1, paused)
	assert.Equal(t, 1, down)
	assert.Equal(t, faults, globals)
}

// exportIdleNode does nothing but lead at start if told to.
type exportIdleNode struct{ lead bool }

func (n *exportIdleNode) Start(env sim.Env, _ []byte) {
	if n.lead {
		env.ActAsLeader(1, 7)
	}
}
func (n *exportIdleNode) OnMessage(sim.Message)    {}
func (n *exportIdleNode) OnTimer(sim.TimerID, int) {}

// TestExportPerfettoOpenSlices checks slices still open when the trace ends
// are closed at the end of the run, and that a node added with StartDown is
// shown down from time 0 until it first starts.
func TestExportPerfettoOpenSlices(t *testing.T) {
	s := sim.New(sim.Config{})
	a := s.AddNode("a", &exportIdleNode{lead: true})
	b := s.AddNode("b", &exportIdleNode{}, sim.StartDown())
	c := s.AddNode("c", &exportIdleNode{})
	rec := &sim.Recorder{}
	s.AddSink(rec)
	s.At(sim.Time(10*time.Millisecond), func() { s.Restart(b, false) })
	s.At(sim.Time(20*time.Millisecond), func() { s.Pause(a) })
	s.At(sim.Time(30*time.Millisecond), func() { s.Crash(c) })
	s.RunUntil(sim.Time(50 * time.Millisecond))
	var out bytes.Buffer
	require.NoError(t, sim.WritePerfetto(&out, s, rec.Records))
	f := exportParse(t, out.Bytes())

	type span struct{ tid, ts, dur int64 }
	got := map[string]span{}
	var bDown []exportEvent
	for _, e := range f.TraceEvents {
		if e.Ph != "X" {
			continue
		}
		if e.Name == "down" && e.Tid == int(b)+1 {
			bDown = append(bDown, e)
			continue
		}
		got[e.Name] = span{int64(e.Tid), exportNs(t, e.Ts), exportNs(t, e.Dur)}
		assert.Equal(t, "trace end", exportArgStr(t, e, "ended"), e.Name)
	}
	ms := int64(time.Millisecond)
	assert.Equal(t, map[string]span{
		"leader e=1 tok=7": {int64(a) + 1, 0, 50 * ms},
		"paused":           {int64(a) + 1, 20 * ms, 30 * ms},
		"down":             {int64(c) + 1, 30 * ms, 20 * ms},
	}, got, "b's start-down slice is checked below")

	require.Len(t, bDown, 1)
	assert.Equal(t, int64(0), exportNs(t, bDown[0].Ts))
	assert.Equal(t, 10*ms, exportNs(t, bDown[0].Dur))
	assert.Equal(t, "started down", exportArgStr(t, bDown[0], "cause"))
}

// A PerfettoSink subscribed to a run writes exactly what WritePerfetto
// writes from a recording of the same run: the export no longer needs the
// trace kept.
func TestPerfettoSinkMatchesWritePerfetto(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		var p *sim.PerfettoSink
		s, recs := exportRun(seed, func(s *sim.Sim) sim.Sink {
			p = sim.NewPerfettoSink(s, 0)
			return p
		})
		var streamed, recorded bytes.Buffer
		require.NoError(t, p.Write(&streamed))
		require.NoError(t, sim.WritePerfetto(&recorded, s, recs))
		require.Equal(t, recorded.String(), streamed.String(), "seed %d", seed)
		require.False(t, p.Truncated())
		require.Equal(t, len(recs), p.Kept())
	}
}

// With a limit the export holds the run's first records: every event of
// them, slices still open there closed "export truncated", and a global
// instant saying so; the sink unsubscribes and the run is unchanged.
func TestPerfettoSinkTruncates(t *testing.T) {
	whole, all := exportRun(3)
	keep := 0
	for i, r := range all {
		if r.Type == sim.RecPause {
			keep = i + 3 // cut while n2 is paused: its slice is open there
			break
		}
	}
	require.NotZero(t, keep)
	var p *sim.PerfettoSink
	s, recs := exportRun(3, func(s *sim.Sim) sim.Sink {
		p = sim.NewPerfettoSink(s, keep)
		return p
	})
	require.Equal(t, whole.TraceHashHex(), s.TraceHashHex(), "the sink only reads")
	require.True(t, p.Truncated())
	require.Equal(t, keep, p.Kept())
	require.Equal(t, recs[keep-1].At, p.End())
	var out bytes.Buffer
	require.NoError(t, p.Write(&out))
	f := exportParse(t, out.Bytes())

	// The same events as an export of the first records alone, whose open
	// slices end "trace end" at the same time, plus the truncation note.
	var first bytes.Buffer
	cut := sim.New(sim.Config{})
	for _, name := range []string{"n1", "n2", "store"} {
		cut.AddNode(name, &exportIdleNode{})
	}
	require.NoError(t, sim.WritePerfetto(&first, cut, recs[:keep]))
	g := exportParse(t, first.Bytes())
	endedBy := func(f exportTraceFile, why string) (n int) {
		for _, e := range f.TraceEvents {
			if e.Ph == "X" && string(e.Args["ended"]) == why {
				n++
			}
		}
		return n
	}
	assert.Positive(t, endedBy(f, `"export truncated"`), "the pause is open at the cut")
	assert.Equal(t, endedBy(g, `"trace end"`), endedBy(f, `"export truncated"`))
	assert.Zero(t, endedBy(f, `"trace end"`))
	var notes int
	for _, e := range f.TraceEvents {
		if e.Name == "export truncated" {
			notes++
			assert.Equal(t, fmt.Sprint(keep), string(e.Args["records"]))
			assert.Equal(t, "g", e.S)
		}
	}
	assert.Equal(t, 1, notes)
	assert.Equal(t, len(g.TraceEvents)+1, len(f.TraceEvents), "the first records' events and the note")
}
