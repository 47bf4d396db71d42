package sim_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/sim"
)

// The helpers here are shared by the trace-export tests (jsonl_test.go,
// perfetto_test.go, example_export_test.go). Every top-level name starts with
// "export" because other test files share package sim_test.

// exportUpdate reports whether -update was given: golden files under
// testdata/ are then rewritten instead of compared. If another test file of
// the package already defined -update, its flag is reused.
var exportUpdate = exportUpdateFlag()

func exportUpdateFlag() func() bool {
	if f := flag.Lookup("update"); f != nil {
		return func() bool {
			g, ok := f.Value.(flag.Getter)
			if !ok {
				return false
			}
			v, _ := g.Get().(bool)
			return v
		}
	}
	p := flag.Bool("update", false, "rewrite testdata/*.golden files")
	return func() bool { return *p }
}

var (
	exportKindPing = sim.RegisterKind("export.Ping")
	exportKindPong = sim.RegisterKind("export.Pong")
)

const (
	exportTagRound   = 1
	exportTagSilence = 2

	exportRoundEvery   = 40 * time.Millisecond
	exportSilenceAfter = 150 * time.Millisecond
)

// exportPingNode is a tiny fixed-leader protocol that exercises every record
// type: the first peer leads (persisting its epoch, stepping down after round
// 4 and leading again with a new epoch at round 6) and pings the others every
// 40 ms; the others believe the sender of the pings, answer with a pong, and
// believe nobody after 150 ms of silence. Pongs are recorded as effects.
type exportPingNode struct {
	peers    []sim.NodeID
	env      sim.Env
	epoch    int64
	round    int64
	leading  bool
	believed sim.NodeID
	silence  sim.TimerID
	buf      [8]byte
}

func (n *exportPingNode) Start(env sim.Env, restored []byte) {
	*n = exportPingNode{peers: n.peers, env: env, believed: sim.None}
	if len(restored) == 8 {
		n.epoch = int64(binary.LittleEndian.Uint64(restored))
	}
	if env.ID() == n.peers[0] {
		n.lead()
		env.SetTimer(exportRoundEvery, exportTagRound)
		return
	}
	n.silence = env.SetTimer(exportSilenceAfter, exportTagSilence)
}

func (n *exportPingNode) lead() {
	n.epoch++
	binary.LittleEndian.PutUint64(n.buf[:], uint64(n.epoch))
	n.env.Persist(n.buf[:])
	n.leading = true
	n.env.ActAsLeader(n.epoch, n.epoch*10)
}

func (n *exportPingNode) OnTimer(_ sim.TimerID, tag int) {
	switch tag {
	case exportTagRound:
		n.round++
		switch n.round {
		case 4:
			n.leading = false
			n.env.StopLeading("round limit")
		case 6:
			n.lead()
		}
		if n.leading {
			for _, p := range n.peers {
				if p != n.env.ID() {
					n.env.Send(sim.Message{Kind: exportKindPing, To: p, Term: n.epoch, Index: n.round})
				}
			}
		}
		n.env.SetTimer(exportRoundEvery, exportTagRound)
	case exportTagSilence:
		if n.believed != sim.None {
			n.believed = sim.None
			n.env.BelieveLeader(sim.None, 0)
		}
		n.silence = n.env.SetTimer(exportSilenceAfter, exportTagSilence)
	}
}

func (n *exportPingNode) OnMessage(m sim.Message) {
	switch m.Kind {
	case exportKindPing:
		if n.believed != m.From {
			n.believed = m.From
			n.env.BelieveLeader(m.From, m.Term)
		}
		n.env.ResetTimer(n.silence, exportSilenceAfter)
		n.env.Send(sim.Message{Kind: exportKindPong, To: m.From, Term: m.Term, Index: m.Index})
	case exportKindPong:
		n.env.Effect(sim.Effect{Name: "export.pong", Detail: "from \"" + n.peerName(m.From) + "\"", A: m.Index, B: m.Term})
	}
}

func (n *exportPingNode) peerName(id sim.NodeID) string {
	return [...]string{"n1", "n2", "store"}[id]
}

// exportRun builds and runs the export workload for seed: n1 (leader, fsync
// 1–3 ms), n2 and a service node "store"; latency uniform 1–10 ms, 10% loss;
// n2 paused 100–180 ms, {n1} | {n2, store} partitioned 300–420 ms, n1 crashed
// 500–600 ms, store's wall clock stepped back 2 s at 650 ms; run to 800 ms. It
// returns the sim and the records. Extra sinks are subscribed before the run.
func exportRun(seed uint64, sinks ...func(*sim.Sim) sim.Sink) (*sim.Sim, []sim.Record) {
	s := sim.New(sim.Config{Seed: seed, Link: sim.LinkConfig{Latency: sim.Uniform(time.Millisecond, 10*time.Millisecond), Drop: 0.1}})
	peers := []sim.NodeID{0, 1, 2}
	n1 := s.AddNode("n1", &exportPingNode{peers: peers}, sim.Fsync(sim.Uniform(time.Millisecond, 3*time.Millisecond)))
	n2 := s.AddNode("n2", &exportPingNode{peers: peers})
	store := s.AddNode("store", &exportPingNode{peers: peers}, sim.Service())
	rec := &sim.Recorder{}
	s.AddSink(rec)
	for _, mk := range sinks {
		s.AddSink(mk(s))
	}
	ms := func(d int) sim.Time { return sim.Time(time.Duration(d) * time.Millisecond) }
	s.At(ms(100), func() { s.Pause(n2) })
	s.At(ms(180), func() { s.Resume(n2) })
	s.At(ms(300), func() { s.Partition([]sim.NodeID{n1}, []sim.NodeID{n2, store}) })
	s.At(ms(420), func() { s.Heal() })
	s.At(ms(500), func() { s.Crash(n1) })
	s.At(ms(600), func() { s.Restart(n1, true) })
	s.At(ms(650), func() { s.StepWall(store, -2*time.Second) })
	s.RunUntil(ms(800))
	s.End()
	return s, rec.Records
}

// exportJSONL runs the workload for seed with a JSONLWriter and returns its
// output and the records.
func exportJSONL(t testing.TB, seed uint64) ([]byte, []sim.Record) {
	var out bytes.Buffer
	var w *sim.JSONLWriter
	_, recs := exportRun(seed, func(s *sim.Sim) sim.Sink {
		w = sim.NewJSONLWriter(&out, s)
		return w
	})
	require.NoError(t, w.Flush())
	return out.Bytes(), recs
}

// exportGolden compares got with testdata/name, or rewrites it under -update.
func exportGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if exportUpdate() {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, got, 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "missing golden file; run go test ./sim -run Export -update")
	if bytes.Equal(want, got) {
		return
	}
	wl, gl := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			t.Fatalf("%s differs at line %d (run with -update if the change is intended):\nwant %s\ngot  %s", path, i+1, w, g)
		}
	}
}

// TestExportJSONLGolden pins the JSON-lines trace of the export workload
// (docs/engine.md, "The trace": every delivery, drop, timer, fault,
// observation and effect streams as one JSON line).
func TestExportJSONLGolden(t *testing.T) {
	out, recs := exportJSONL(t, 7)
	assert.Equal(t, len(recs), bytes.Count(out, []byte("\n")), "one line per record")
	exportGolden(t, "export_trace.jsonl.golden", out)
}

// TestExportJSONLDeterministic checks that the same seed gives byte-identical
// output (docs/engine.md, "Randomness": the same seed gives a byte-identical trace) and
// that another seed does not.
func TestExportJSONLDeterministic(t *testing.T) {
	a, _ := exportJSONL(t, 11)
	b, _ := exportJSONL(t, 11)
	require.True(t, bytes.Equal(a, b), "same seed, different JSONL output")
	c, _ := exportJSONL(t, 12)
	require.False(t, bytes.Equal(a, c), "different seeds gave identical output")
}

// exportLine is one parsed JSONL line.
type exportLine struct {
	TNs    *int64  `json:"t_ns"`
	T      string  `json:"t"`
	Type   string  `json:"type"`
	Node   *string `json:"node"`
	Peer   *string `json:"peer"`
	Kind   string  `json:"kind"`
	Reason string  `json:"reason"`
	SentNs *int64  `json:"sent_ns"`
	Epoch  *int64  `json:"epoch"`
	Token  *int64  `json:"token"`
	A      int64   `json:"a"`
	B      int64   `json:"b"`
	C      int64   `json:"c"`
	MonoNs *int64  `json:"mono_ns"`
	Wall   string  `json:"wall"`
	Name   string  `json:"name"`
	Detail string  `json:"detail"`
}

// TestExportJSONLMatchesRecords parses every line and checks it against the
// record it came from, so the golden file cannot silently pin a wrong field.
func TestExportJSONLMatchesRecords(t *testing.T) {
	out, recs := exportJSONL(t, 7)
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	require.Len(t, lines, len(recs))
	names := []string{"n1", "n2", "store"}
	seen := map[string]int{}
	for i, line := range lines {
		r := recs[i]
		var l exportLine
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		require.NoError(t, dec.Decode(&l), "line %d: %s", i+1, line)
		seen[l.Type]++
		require.NotNil(t, l.TNs)
		assert.Equal(t, int64(r.At), *l.TNs, line)
		assert.Equal(t, r.At.String(), l.T, line)
		assert.Equal(t, r.Type.String(), l.Type, line)
		if r.Node == sim.None {
			assert.Nil(t, l.Node, line)
		} else if assert.NotNil(t, l.Node, line) {
			assert.Equal(t, names[r.Node], *l.Node, line)
		}
		if r.Peer == sim.None {
			assert.Nil(t, l.Peer, line)
		} else if assert.NotNil(t, l.Peer, line) {
			assert.Equal(t, names[r.Peer], *l.Peer, line)
		}
		switch r.Type {
		case sim.RecDeliver, sim.RecDrop:
			assert.Equal(t, r.Kind.String(), l.Kind, line)
			if assert.NotNil(t, l.SentNs, line) {
				assert.Equal(t, int64(r.SentAt), *l.SentNs, line)
			}
			assert.Nil(t, l.MonoNs, line)
		case sim.RecLead, sim.RecStepDown:
			require.NotNil(t, l.Epoch, line)
			require.NotNil(t, l.Token, line)
			assert.Equal(t, r.Epoch, *l.Epoch, line)
			assert.Equal(t, r.Token, *l.Token, line)
		}
		if r.Type == sim.RecDrop {
			assert.Equal(t, r.Reason.String(), l.Reason, line)
		} else {
			assert.Empty(t, l.Reason, line)
		}
		assert.Equal(t, r.A, l.A, line)
		assert.Equal(t, r.B, l.B, line)
		assert.Equal(t, r.C, l.C, line)
		if r.Wall != 0 {
			require.NotNil(t, l.MonoNs, line)
			assert.Equal(t, int64(r.Mono), *l.MonoNs, line)
			wall, err := time.Parse(time.RFC3339Nano, l.Wall)
			require.NoError(t, err, line)
			assert.Equal(t, r.Wall, wall.UnixNano(), line)
		} else {
			assert.Empty(t, l.Wall, line)
		}
		assert.Equal(t, r.Name, l.Name, line)
		assert.Equal(t, r.Detail, l.Detail, line)
	}
	// The workload must reach every record type but RecEnd's absence of a node.
	for _, typ := range []sim.RecordType{sim.RecStart, sim.RecDeliver, sim.RecDrop, sim.RecTimer,
		sim.RecPersist, sim.RecPersistDone, sim.RecCrash, sim.RecPause, sim.RecResume, sim.RecFault,
		sim.RecLead, sim.RecStepDown, sim.RecBelieve, sim.RecEffect, sim.RecEnd} {
		assert.Positive(t, seen[typ.String()], "workload produced no %q record", typ)
	}
}

// TestExportJSONLFields pins the exact line for hand-made records, including
// which fields are omitted per type.
func TestExportJSONLFields(t *testing.T) {
	s := sim.New(sim.Config{})
	n1 := s.AddNode("n1", &exportPingNode{})
	n2 := s.AddNode("n2", &exportPingNode{})
	wall := sim.DefaultWallStart.Add(1500 * time.Millisecond).UnixNano()
	cases := []struct {
		rec  sim.Record
		want string
	}{
		{sim.Record{At: 12_345_678_901, Type: sim.RecDeliver, Kind: exportKindPing, Node: n2, Peer: n1, SentAt: 12_340_000_000, Epoch: 3},
			`{"t_ns":12345678901,"t":"12.345s","type":"deliver","node":"n2","peer":"n1","kind":"export.Ping","sent_ns":12340000000,"epoch":3}`},
		{sim.Record{At: 5, Type: sim.RecDrop, Reason: sim.DropPartitionAtSend, Kind: exportKindPong, Node: n1, Peer: n2, SentAt: 5},
			`{"t_ns":5,"t":"0.000s","type":"drop","node":"n1","peer":"n2","kind":"export.Pong","reason":"partition_at_send","sent_ns":5}`},
		{sim.Record{At: 1_000_000, Type: sim.RecTimer, Node: n1, Peer: sim.None, A: 2, B: 77},
			`{"t_ns":1000000,"t":"0.001s","type":"timer","node":"n1","a":2,"b":77}`},
		{sim.Record{At: 1_500_000_000, Type: sim.RecBelieve, Node: n1, Peer: sim.None, Mono: 1_499_999_999, Wall: wall},
			`{"t_ns":1500000000,"t":"1.500s","type":"believe","node":"n1","epoch":0,"mono_ns":1499999999,"wall":"2026-01-01T00:00:01.5Z"}`},
		{sim.Record{At: 0, Type: sim.RecLead, Node: n2, Peer: sim.None, Wall: wall},
			`{"t_ns":0,"t":"0.000s","type":"lead","node":"n2","epoch":0,"token":0,"mono_ns":0,"wall":"2026-01-01T00:00:01.5Z"}`},
		{sim.Record{At: 9, Type: sim.RecFault, Node: sim.None, Peer: sim.None, Name: "net.heal", Detail: "all links restored"},
			`{"t_ns":9,"t":"0.000s","type":"fault","name":"net.heal","detail":"all links restored"}`},
		{sim.Record{At: 9, Type: sim.RecEffect, Node: n1, Peer: sim.None, Name: "job", A: -1, C: 4, Wall: wall},
			`{"t_ns":9,"t":"0.000s","type":"effect","node":"n1","a":-1,"c":4,"mono_ns":0,"wall":"2026-01-01T00:00:01.5Z","name":"job"}`},
		{sim.Record{At: 10, Type: sim.RecEnd, Node: sim.None, Peer: sim.None, A: 42, Detail: "horizon"},
			`{"t_ns":10,"t":"0.000s","type":"end","a":42,"detail":"horizon"}`},
	}
	for _, c := range cases {
		var out bytes.Buffer
		w := sim.NewJSONLWriter(&out, s)
		w.Record(&c.rec)
		require.NoError(t, w.Flush())
		assert.Equal(t, c.want+"\n", out.String())
		assert.True(t, json.Valid(bytes.TrimSpace(out.Bytes())))
	}
}

// TestExportJSONLEscaping checks the hand-written escaper against
// encoding/json (HTML escaping off) byte for byte, and that every line parses
// back to the original string.
func TestExportJSONLEscaping(t *testing.T) {
	strs := []string{
		``, `plain`, `quote " inside`, `back\slash`, `\"both\"`, "new\nline", "tab\tcr\r",
		"bell\a nul\x00 esc\x1b us\x1f del\x7f", "form\ffeed back\bspace", "unicode é 日本 🙂",
		"line sep \u2028 para sep \u2029", "<html> & 'single'", "ends with \\",
	}
	s := sim.New(sim.Config{})
	id := s.AddNode("node \"q\"\n\\", &exportPingNode{})
	for _, str := range strs {
		var out bytes.Buffer
		w := sim.NewJSONLWriter(&out, s)
		w.Record(&sim.Record{Type: sim.RecEffect, Node: id, Peer: sim.None, Name: str, Detail: str})
		require.NoError(t, w.Flush())
		line := bytes.TrimSuffix(out.Bytes(), []byte("\n"))
		require.True(t, json.Valid(line), "%q -> %s", str, line)
		var got struct{ Node, Name, Detail string }
		require.NoError(t, json.Unmarshal(line, &got))
		assert.Equal(t, "node \"q\"\n\\", got.Node)
		if str != "" {
			assert.Equal(t, str, got.Name)
			assert.Equal(t, str, got.Detail)
			var want bytes.Buffer
			enc := json.NewEncoder(&want)
			enc.SetEscapeHTML(false)
			require.NoError(t, enc.Encode(str))
			assert.Contains(t, string(line), `"detail":`+strings.TrimSuffix(want.String(), "\n")+`}`)
		}
	}
	// Invalid UTF-8 becomes U+FFFD, as encoding/json does, so the line stays valid.
	for _, bad := range []string{"\xff", "a\xc3", "\xed\xa0\x80", "ok\xe2\x82"} {
		var out bytes.Buffer
		w := sim.NewJSONLWriter(&out, s)
		w.Record(&sim.Record{Type: sim.RecEffect, Node: id, Peer: sim.None, Detail: bad})
		require.NoError(t, w.Flush())
		line := bytes.TrimSuffix(out.Bytes(), []byte("\n"))
		require.True(t, json.Valid(line), "%q -> %s", bad, line)
		want, err := json.Marshal(bad)
		require.NoError(t, err)
		assert.Contains(t, string(line), `"detail":`+string(want)+`}`)
	}
}

// TestExportJSONLZeroAllocs checks that a warm JSONLWriter formats records
// without allocating (the trace must not slow the engine's zero-allocation
// steady state).
func TestExportJSONLZeroAllocs(t *testing.T) {
	s := sim.New(sim.Config{})
	n1 := s.AddNode("n1", &exportPingNode{})
	n2 := s.AddNode("n2", &exportPingNode{})
	w := sim.NewJSONLWriter(exportDiscard{}, s)
	wall := sim.DefaultWallStart.Add(time.Second).UnixNano()
	recs := []sim.Record{
		{At: 123_456_789, Type: sim.RecDeliver, Kind: exportKindPing, Node: n2, Peer: n1, SentAt: 123_000_000, Epoch: 4},
		{At: 123_456_789, Type: sim.RecDrop, Reason: sim.DropLoss, Kind: exportKindPong, Node: n1, Peer: n2, SentAt: 123_000_000},
		{At: 123_456_789, Type: sim.RecTimer, Node: n1, Peer: sim.None, A: 1, B: 99},
		{At: 123_456_789, Type: sim.RecLead, Node: n1, Peer: sim.None, Epoch: 4, Token: 40, Mono: 123_456_000, Wall: wall},
		{At: 123_456_789, Type: sim.RecEffect, Node: n1, Peer: sim.None, Name: "lease \"x\"", Detail: "tab\there é", A: 1, B: 2, C: 3, Wall: wall},
		{At: 123_456_789, Type: sim.RecFault, Node: sim.None, Peer: sim.None, Name: "net.partition", Detail: "{n1} | {n2}"},
	}
	for i := 0; i < 10_000; i++ { // warm up past several flushes
		w.Record(&recs[i%len(recs)])
	}
	i := 0
	allocs := testing.AllocsPerRun(10_000, func() {
		w.Record(&recs[i%len(recs)])
		i++
	})
	require.NoError(t, w.Flush())
	assert.Zero(t, allocs, "allocations per record")
}

// exportDiscard is io.Discard without the io.ReaderFrom path.
type exportDiscard struct{}

func (exportDiscard) Write(p []byte) (int, error) { return len(p), nil }

// exportFailWriter fails every write after the first n bytes.
type exportFailWriter struct {
	n     int
	short bool
}

var errExportWrite = errors.New("disk full")

func (f *exportFailWriter) Write(p []byte) (int, error) {
	if f.short {
		return len(p) / 2, nil
	}
	if len(p) > f.n {
		return 0, errExportWrite
	}
	f.n -= len(p)
	return len(p), nil
}

// TestExportJSONLWriteError checks the sticky error: Flush and Err report the
// first failure, and later records are dropped rather than retried.
func TestExportJSONLWriteError(t *testing.T) {
	s := sim.New(sim.Config{})
	id := s.AddNode("n1", &exportPingNode{})
	rec := sim.Record{Type: sim.RecTimer, Node: id, Peer: sim.None}
	w := sim.NewJSONLWriter(&exportFailWriter{}, s)
	w.Record(&rec)
	assert.NoError(t, w.Err(), "buffered, nothing written yet")
	assert.ErrorIs(t, w.Flush(), errExportWrite)
	assert.ErrorIs(t, w.Err(), errExportWrite)
	w.Record(&rec)
	assert.ErrorIs(t, w.Flush(), errExportWrite)

	w = sim.NewJSONLWriter(&exportFailWriter{short: true}, s)
	w.Record(&rec)
	assert.ErrorIs(t, w.Flush(), io.ErrShortWrite)
}

// BenchmarkExportJSONLRecord measures formatting one record (a mix of
// deliveries, drops, timers, leads, effects and faults) into a JSONLWriter.
func BenchmarkExportJSONLRecord(b *testing.B) {
	s := sim.New(sim.Config{})
	n1 := s.AddNode("n1", &exportPingNode{})
	n2 := s.AddNode("n2", &exportPingNode{})
	w := sim.NewJSONLWriter(exportDiscard{}, s)
	wall := sim.DefaultWallStart.Add(time.Second).UnixNano()
	recs := []sim.Record{
		{At: 123_456_789, Type: sim.RecDeliver, Kind: exportKindPing, Node: n2, Peer: n1, SentAt: 123_000_000, Epoch: 4},
		{At: 123_456_789, Type: sim.RecDrop, Reason: sim.DropLoss, Kind: exportKindPong, Node: n1, Peer: n2, SentAt: 123_000_000},
		{At: 123_456_789, Type: sim.RecTimer, Node: n1, Peer: sim.None, A: 1, B: 99},
		{At: 123_456_789, Type: sim.RecLead, Node: n1, Peer: sim.None, Epoch: 4, Token: 40, Mono: 123_456_000, Wall: wall},
		{At: 123_456_789, Type: sim.RecEffect, Node: n1, Peer: sim.None, Name: "lease.acquired", Detail: "holder n1", A: 1, B: 2, C: 3, Wall: wall},
		{At: 123_456_789, Type: sim.RecFault, Node: sim.None, Peer: sim.None, Name: "net.partition", Detail: "{n1} | {n2}"},
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		w.Record(&recs[i%len(recs)])
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
}
