package reports

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzDistJSON: a distribution read from a file (simrun merge reads shards'
// summaries, which may be hostile) is either refused or consistent: its
// statistics stay within [min, max], it survives a merge with itself, and
// it writes back to a form that reads back the same.
//
//	go test ./reports -run '^$' -fuzz FuzzDistJSON -fuzztime 60s
func FuzzDistJSON(f *testing.F) {
	var exact, bucketed Dist
	for i := 0; i < 10; i++ {
		exact.Add(float64(i) * 1.5)
	}
	for i := 0; i < DistExactMax+50; i++ {
		bucketed.Add(float64(i%97) * 3.25)
	}
	for _, d := range []*Dist{&exact, &bucketed, {}} {
		b, err := json.Marshal(d)
		require.NoError(f, err)
		f.Add(b)
	}
	f.Add([]byte(`{"count":2,"min":1,"max":2,"sum_e6":"3000000","buckets":[[0,1],[128,1]]}`))
	f.Add([]byte(`{"count":9223372036854775807,"min":0,"max":1,"buckets":[[0,9223372036854775807],[1,1]]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var d Dist
		if err := json.Unmarshal(b, &d); err != nil {
			return
		}
		n := d.Count()
		require.GreaterOrEqual(t, n, 0)
		if n > 0 {
			for _, p := range []float64{0, 1, 50, 99, 100} {
				v := d.Percentile(p)
				require.False(t, math.IsNaN(v), "p%v is NaN", p)
				require.GreaterOrEqual(t, v, d.min, "p%v below min", p)
				require.LessOrEqual(t, v, d.max, "p%v above max", p)
			}
			st := d.Stats()
			require.Equal(t, n, st.Count)
			require.LessOrEqual(t, d.CountAbove(d.min), n)
			for _, v := range d.Sample(5) {
				require.True(t, v >= d.min && v <= d.max, "sampled %v outside [%v, %v]", v, d.min, d.max)
			}
		}
		again, err := json.Marshal(&d)
		require.NoError(t, err)
		var e Dist
		require.NoError(t, json.Unmarshal(again, &e), "%s", again)
		back, err := json.Marshal(&e)
		require.NoError(t, err)
		require.Equal(t, string(again), string(back))
		if n < math.MaxInt32 { // a self-merge doubles the count
			m := e
			m.Merge(&d)
			require.Equal(t, 2*n, m.Count())
		}
	})
}

// FuzzReadSummary: any bytes given to simrun merge as a summary are refused
// with an error or read into a summary that merges (alone) without panic.
//
//	go test ./reports -run '^$' -fuzz FuzzReadSummary -fuzztime 60s
func FuzzReadSummary(f *testing.F) {
	if b, err := os.ReadFile("testdata/summary-seed.json"); err == nil {
		f.Add(b)
	}
	f.Add([]byte(`{"schema":"` + Schema + `"}`))
	f.Add([]byte(`{"schema":"` + Schema + `","seeds":{"first":1,"count":2},"algorithms":[{"algorithm":"raft","runs":2,"ok":2}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := ReadJSON(bytes.NewReader(b))
		if err != nil {
			return
		}
		m, err := Merge([]*Summary{s})
		if err != nil {
			return
		}
		require.NoError(t, WriteJSON(io.Discard, m))
	})
}

// FuzzRunsReader: a runs file given to simrun merge is read line by line
// into runs or refused with an error, whatever its bytes (plain or gzip).
//
//	go test ./reports -run '^$' -fuzz FuzzRunsReader -fuzztime 60s
func FuzzRunsReader(f *testing.F) {
	var plain, gz bytes.Buffer
	for _, buf := range []struct {
		b    *bytes.Buffer
		gzip bool
	}{{&plain, false}, {&gz, true}} {
		w := NewRunsWriter(buf.b, buf.gzip)
		for seed := uint64(1); seed <= 3; seed++ {
			line, err := EncodeRun(&RunSummary{Seed: seed, Algorithm: "raft", OK: seed != 2})
			require.NoError(f, err)
			require.NoError(f, w.WriteLine(line))
		}
		require.NoError(f, w.Close())
		f.Add(buf.b.Bytes())
	}
	f.Add([]byte("{\"seed\":1}\n{not json}\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		rr, err := NewRunsReader(bytes.NewReader(b), "fuzz")
		if err != nil {
			return
		}
		defer rr.Close()
		for i := 0; i < 1000; i++ {
			line, _, _, err := rr.Next()
			if err != nil {
				return
			}
			if r, err := rr.Run(line); err == nil {
				_, err := EncodeRun(&r)
				require.NoError(t, err)
			}
		}
	})
}
