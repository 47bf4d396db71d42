package sim

import (
	"bufio"
	"cmp"
	"io"
	"slices"
	"strconv"
	"time"
)

// WritePerfetto writes recs (normally a Recorder's records of a whole run) to
// w in the Chrome trace-event JSON format, which ui.perfetto.dev and
// chrome://tracing open, so a person can scroll a run's timeline:
//
//   - one track (thread) per node, named after it, in ID order, plus a
//     "faults" track; timestamps are true time in microseconds with
//     nanosecond precision;
//   - leadership tenures as slices "leader e=<epoch> tok=<token>", from the
//     node's lead record to its step-down, a newer lead record, or the end of
//     the trace (args: epoch, token, why it ended);
//   - process pauses ("paused", pause to resume) and down time ("down",
//     crash to restart; from time 0 for a node whose first start is a
//     restart) as slices;
//   - each delivered message as a zero-length slice named after its kind on
//     the sender's track at its send time and on the receiver's track at its
//     delivery, joined by a flow arrow (ph "s" / "f");
//   - drops (on the destination's track), timers, disk writes, starts,
//     beliefs and effects as instant events with their fields as args;
//   - faults, annotations and the run's end as global instant events on the
//     "faults" track.
//
// s supplies node names, the node count, the seed (named in the process name)
// and the end of the trace (the later of s.Now() and the last record). The
// output is a pure function of its inputs: events are sorted by time, ties
// broken by a fixed rule and then by record order. The export is built in
// memory (a few hundred bytes per record); PerfettoSink builds the same
// export as a run goes, without a Recorder, and can bound it.
func WritePerfetto(w io.Writer, s *Sim, recs []Record) error {
	p := NewPerfettoSink(s, 0)
	for i := range recs {
		p.add(&recs[i])
	}
	return p.Write(w)
}

// PerfettoSink builds a run's Perfetto export (WritePerfetto's format) as
// its records stream, so that no Recorder has to hold the trace: the export
// takes a few hundred bytes per record, the records themselves nothing.
// With a limit it keeps the run's first maxRecords records, then
// unsubscribes; the export then ends at the last record kept, slices still
// open there end "export truncated", and a global instant of that name on
// the faults track says how many records it holds.
type PerfettoSink struct {
	x         pfExport
	max       int
	n         int
	last      Time
	truncated bool
}

// NewPerfettoSink returns a sink exporting s's records; maxRecords bounds
// how many (0: no bound). Subscribe it with s.AddSink before the run.
func NewPerfettoSink(s *Sim, maxRecords int) *PerfettoSink {
	p := &PerfettoSink{max: maxRecords}
	p.x = pfExport{s: s, kinds: kindNames(), nodes: make([]pfNode, s.NumNodes()), faultsTid: s.NumNodes() + 1}
	return p
}

// Record implements Sink.
func (p *PerfettoSink) Record(r *Record) {
	if p.truncated {
		return // the record being handed out as it unsubscribed
	}
	if p.max > 0 && p.n == p.max {
		p.truncated = true
		p.x.s.RemoveSink(p)
		return
	}
	p.add(r)
}

func (p *PerfettoSink) add(r *Record) {
	p.n++
	p.last = max(p.last, r.At)
	p.x.record(r)
}

// Truncated reports whether the run had more records than the sink kept.
func (p *PerfettoSink) Truncated() bool { return p.truncated }

// Kept is the number of records in the export.
func (p *PerfettoSink) Kept() int { return p.n }

// End is where the export ends: the run's current time, or the last record
// kept if the export was truncated.
func (p *PerfettoSink) End() Time {
	if p.truncated {
		return p.last
	}
	return max(p.x.s.Now(), p.last)
}

// Write closes the slices still open and writes the export to w. Call it
// once, after the run.
func (p *PerfettoSink) Write(w io.Writer) error {
	x := &p.x
	end := p.End()
	why := "trace end"
	if p.truncated {
		why = "export truncated"
	}
	x.closeAll(end, why)
	if p.truncated {
		x.instant("fault", "export truncated", x.faultsTid, end, true)
		x.argInt("records", int64(p.n))
		x.done()
	}
	x.flushChunk()
	// By time; at equal times enclosing slices before nested ones, then
	// zero-length message slices with their flow ends, then instants; ties in
	// record order (stable).
	slices.SortStableFunc(x.evs, func(a, b pfEvent) int {
		if c := cmp.Compare(a.ts, b.ts); c != 0 {
			return c
		}
		return cmp.Compare(b.dur, a.dur)
	})
	bw := bufio.NewWriterSize(w, 1<<16)
	bw.WriteString("{\"traceEvents\":[\n")
	bw.Write(x.appendMetadata(nil))
	for _, e := range x.evs {
		bw.WriteString(",\n")
		bw.Write(x.chunks[e.chunk][e.start:e.end])
	}
	bw.WriteString("\n],\n\"displayTimeUnit\":\"ms\"}\n")
	return bw.Flush() // a bufio.Writer keeps its first error
}

// pfNode is a node's open slices while the export walks the trace.
type pfNode struct {
	started  bool // a start or crash was seen
	leading  bool
	leadAt   Time
	epoch    int64
	token    int64
	paused   bool
	pauseAt  Time
	down     bool
	downAt   Time
	downWhy  string
	leadWall int64
}

// pfEvent is one encoded trace event: its JSON is chunks[chunk][start:end]
// (buf while the chunk is the current one).
type pfEvent struct {
	ts         Time
	dur        int64 // slices: duration in ns; everything else -1 (sorts after slices)
	chunk      int32
	start, end int32
}

// pfChunk is the size of the buffers events are encoded into: the export
// grows a chunk at a time rather than by copying one buffer of the whole
// trace as it doubles.
const pfChunk = 4 << 20

type pfExport struct {
	s         *Sim
	kinds     []string
	nodes     []pfNode
	faultsTid int
	buf       []byte   // the current chunk
	chunks    [][]byte // the chunks, the current one last once flushed
	evs       []pfEvent
	cur       pfEvent
	nargs     int
	flows     int64
}

func (x *pfExport) tid(id NodeID) int { return int(id) + 1 }

func (x *pfExport) kindName(k MsgKind) string {
	if int(k) < len(x.kinds) {
		return x.kinds[k]
	}
	return k.String()
}

// appendMetadata names the process and every track.
func (x *pfExport) appendMetadata(b []byte) []byte {
	b = append(b, `{"name":"process_name","ph":"M","pid":1,"tid":0,"args":{"name":`...)
	b = appendJSONString(b, "electsim seed="+strconv.FormatUint(x.s.Seed(), 10))
	b = append(b, "}}"...)
	for i := 0; i <= len(x.nodes); i++ {
		name := "faults"
		if i < len(x.nodes) {
			name = x.s.NodeName(NodeID(i))
		}
		b = append(b, ",\n"...)
		b = append(b, `{"name":"thread_name","ph":"M","pid":1,"tid":`...)
		b = strconv.AppendInt(b, int64(i+1), 10)
		b = append(b, `,"args":{"name":`...)
		b = appendJSONString(b, name)
		b = append(b, "}},\n"...)
		b = append(b, `{"name":"thread_sort_index","ph":"M","pid":1,"tid":`...)
		b = strconv.AppendInt(b, int64(i+1), 10)
		b = append(b, `,"args":{"sort_index":`...)
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, "}}"...)
	}
	return b
}

// appendMicros appends ns as microseconds with three decimals ("1234.567").
func appendMicros(b []byte, ns int64) []byte {
	if ns < 0 {
		b = append(b, '-')
		ns = -ns
	}
	b = strconv.AppendInt(b, ns/1000, 10)
	frac := ns % 1000
	b = append(b, '.', byte('0'+frac/100), byte('0'+frac/10%10), byte('0'+frac%10))
	return b
}

// begin starts an event: name, phase, category, track and time. An event
// starts a new chunk when the current one is nearly full (an event is a few
// hundred bytes; one that outgrows its chunk just grows it).
func (x *pfExport) begin(ph, cat, name string, tid int, ts Time) {
	if cap(x.buf)-len(x.buf) < 64<<10 {
		x.flushChunk()
		x.buf = make([]byte, 0, pfChunk)
	}
	x.cur = pfEvent{ts: ts, dur: -1, chunk: int32(len(x.chunks)), start: int32(len(x.buf))}
	x.nargs = -1
	b := append(x.buf, `{"name":`...)
	b = appendJSONString(b, name)
	b = append(b, `,"cat":"`...)
	b = append(b, cat...)
	b = append(b, `","ph":"`...)
	b = append(b, ph...)
	b = append(b, `","pid":1,"tid":`...)
	b = strconv.AppendInt(b, int64(tid), 10)
	b = append(b, `,"ts":`...)
	x.buf = appendMicros(b, int64(ts))
}

// slice starts a complete ("X") event from t0 to t1.
func (x *pfExport) slice(cat, name string, tid int, t0, t1 Time) {
	x.begin("X", cat, name, tid, t0)
	x.cur.dur = int64(t1 - t0)
	x.buf = append(x.buf, `,"dur":`...)
	x.buf = appendMicros(x.buf, x.cur.dur)
}

// instant starts an instant ("i") event; global ones draw across every track.
func (x *pfExport) instant(cat, name string, tid int, ts Time, global bool) {
	x.begin("i", cat, name, tid, ts)
	if global {
		x.buf = append(x.buf, `,"s":"g"`...)
	} else {
		x.buf = append(x.buf, `,"s":"t"`...)
	}
}

// flow starts a flow event ("s" or "f") with id.
func (x *pfExport) flow(ph, name string, tid int, ts Time, id int64) {
	x.begin(ph, "msg", name, tid, ts)
	x.cur.dur = 0 // sorts with the zero-length message slice it binds to
	x.buf = append(x.buf, `,"id":`...)
	x.buf = strconv.AppendInt(x.buf, id, 10)
	if ph == "f" {
		x.buf = append(x.buf, `,"bp":"e"`...)
	}
}

func (x *pfExport) argKey(k string) {
	if x.nargs < 0 {
		x.buf = append(x.buf, `,"args":{`...)
		x.nargs = 0
	} else {
		x.buf = append(x.buf, ',')
	}
	x.nargs++
	x.buf = appendJSONString(x.buf, k)
	x.buf = append(x.buf, ':')
}

func (x *pfExport) argInt(k string, v int64) {
	x.argKey(k)
	x.buf = strconv.AppendInt(x.buf, v, 10)
}

func (x *pfExport) argStr(k, v string) {
	x.argKey(k)
	x.buf = appendJSONString(x.buf, v)
}

func (x *pfExport) argWall(wall int64) {
	if wall != 0 {
		x.argKey("wall")
		x.buf = append(x.buf, '"')
		x.buf = time.Unix(0, wall).UTC().AppendFormat(x.buf, time.RFC3339Nano)
		x.buf = append(x.buf, '"')
	}
}

// done closes the current event and queues it.
func (x *pfExport) done() {
	if x.nargs >= 0 {
		x.buf = append(x.buf, '}')
	}
	x.buf = append(x.buf, '}')
	x.cur.end = int32(len(x.buf))
	x.evs = append(x.evs, x.cur)
}

// flushChunk files the current chunk, if any, among the chunks.
func (x *pfExport) flushChunk() {
	if x.buf != nil {
		x.chunks = append(x.chunks, x.buf)
		x.buf = nil
	}
}

func (x *pfExport) node(id NodeID) *pfNode {
	if id < 0 || int(id) >= len(x.nodes) {
		return nil
	}
	return &x.nodes[id]
}

// otherArgs adds Detail, A, B and C when set.
func (x *pfExport) otherArgs(r *Record) {
	if r.Detail != "" {
		x.argStr("detail", r.Detail)
	}
	if r.A != 0 {
		x.argInt("a", r.A)
	}
	if r.B != 0 {
		x.argInt("b", r.B)
	}
	if r.C != 0 {
		x.argInt("c", r.C)
	}
}

// global records a fault, annotation or the run's end on the faults track.
func (x *pfExport) global(r *Record) {
	name := r.Name
	if name == "" {
		name = r.Type.String()
	}
	x.instant("fault", name, x.faultsTid, r.At, true)
	if r.Detail != "" {
		x.argStr("detail", r.Detail)
	}
	if x.node(r.Node) != nil {
		x.argStr("node", x.s.NodeName(r.Node))
	}
	if r.Type == RecEnd {
		x.argInt("events", r.A)
	}
	x.done()
}

func (x *pfExport) endLead(id NodeID, at Time, why string) {
	n := &x.nodes[id]
	if !n.leading {
		return
	}
	n.leading = false
	name := "leader e=" + strconv.FormatInt(n.epoch, 10) + " tok=" + strconv.FormatInt(n.token, 10)
	x.slice("leader", name, x.tid(id), n.leadAt, at)
	x.argInt("epoch", n.epoch)
	x.argInt("token", n.token)
	x.argStr("ended", why)
	x.argWall(n.leadWall)
	x.done()
}

// endPause closes an open pause; buffered (if not negative) is the number of
// events handed over on resume.
func (x *pfExport) endPause(id NodeID, at Time, why string, buffered int64) {
	n := &x.nodes[id]
	if !n.paused {
		return
	}
	n.paused = false
	x.slice("state", "paused", x.tid(id), n.pauseAt, at)
	x.argStr("ended", why)
	if buffered >= 0 {
		x.argInt("buffered", buffered)
	}
	x.done()
}

// closeAll ends every slice still open at the end of the trace, for why.
func (x *pfExport) closeAll(end Time, why string) {
	for i := range x.nodes {
		id := NodeID(i)
		x.endLead(id, end, why)
		x.endPause(id, end, why, -1)
		if n := &x.nodes[i]; n.down {
			x.slice("state", "down", x.tid(id), n.downAt, end)
			x.argStr("cause", n.downWhy)
			x.argStr("ended", why)
			x.done()
			n.down = false
		}
	}
}
