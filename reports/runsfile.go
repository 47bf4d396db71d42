package reports

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"container/heap"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
)

// RunsFileName is the file simrun writes every run to, beside summary.json:
// one RunSummary per line, as JSON, in run order (group, then seed),
// gzip-compressed (docs/output.md, "runs.jsonl.gz").
const RunsFileName = "runs.jsonl.gz"

// MaxRunLine bounds one line of a runs file read back (a run's JSON is a
// few kilobytes; a longer line is not one simrun wrote).
const MaxRunLine = 16 << 20

// RunBytesPerRun is the decompressed bytes a runs file read back may hold
// per run its summary counts (MaxRunsFileBytes). simrun's runs are a few
// hundred bytes to a few kilobytes of JSON; the bound stops a small
// compressed file that inflates to gigabytes (a gzip bomb) early.
const RunBytesPerRun = 64 << 10

// MaxRunsFileBytes is the most decompressed bytes a runs file of runs runs
// may hold: one longest line, plus RunBytesPerRun per run.
func MaxRunsFileBytes(runs int) int64 {
	if runs < 0 {
		runs = 0
	}
	if int64(runs) > (math.MaxInt64-MaxRunLine)/RunBytesPerRun {
		return math.MaxInt64
	}
	return MaxRunLine + int64(runs)*RunBytesPerRun
}

// RunsWriter writes runs as JSON lines, gzip-compressed or not.
type RunsWriter struct {
	bw *bufio.Writer
	gz *gzip.Writer
	n  int
}

// NewRunsWriter writes to w; compress gzips (at BestSpeed: the file is
// written while the sweep runs).
func NewRunsWriter(w io.Writer, compress bool) *RunsWriter {
	rw := &RunsWriter{}
	if compress {
		rw.gz, _ = gzip.NewWriterLevel(w, gzip.BestSpeed)
		w = rw.gz
	}
	rw.bw = bufio.NewWriterSize(w, 1<<16)
	return rw
}

// EncodeRun is r's line, without the newline.
func EncodeRun(r *RunSummary) ([]byte, error) { return json.Marshal(r) }

// WriteLine writes one run's line (EncodeRun's output).
func (w *RunsWriter) WriteLine(line []byte) error {
	w.n++
	if _, err := w.bw.Write(line); err != nil {
		return err
	}
	return w.bw.WriteByte('\n')
}

// Lines is the number of lines written.
func (w *RunsWriter) Lines() int { return w.n }

// Close flushes everything (it does not close the underlying writer).
func (w *RunsWriter) Close() error {
	if err := w.bw.Flush(); err != nil {
		return err
	}
	if w.gz != nil {
		return w.gz.Close()
	}
	return nil
}

// RunsReader reads a runs file line by line, gzip-compressed or not (told
// by its first bytes).
type RunsReader struct {
	sc       *bufio.Scanner
	gz       *gzip.Reader
	lim      *limitedReader
	name     string
	line     int
	maxLines int // -1: no bound
}

// Bound makes the reader refuse more than runs lines and, decompressed,
// more than MaxRunsFileBytes(runs) bytes: the runs its summary counts.
func (r *RunsReader) Bound(runs int) {
	r.maxLines = runs
	r.lim.max = MaxRunsFileBytes(runs)
	r.lim.runs = runs
}

// limitedReader fails once more than max bytes were read (max < 0: no
// bound).
type limitedReader struct {
	r      io.Reader
	n, max int64
	runs   int
	err    error // the bound's error, once passed
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.max >= 0 && int64(len(p)) > l.max-l.n+1 {
		p = p[:l.max-l.n+1]
	}
	n, err := l.r.Read(p)
	l.n += int64(n)
	if l.max >= 0 && l.n > l.max {
		l.err = fmt.Errorf("decompresses to more than %d bytes, the most for the %d runs its summary counts (%d bytes a run, reports.RunBytesPerRun)", l.max, l.runs, RunBytesPerRun)
		return n, l.err
	}
	return n, err
}

// NewRunsReader reads from r; name is for errors.
func NewRunsReader(r io.Reader, name string) (*RunsReader, error) {
	// Small buffers: a merge holds one reader per shard.
	br := bufio.NewReaderSize(r, 16<<10)
	rr := &RunsReader{name: name, maxLines: -1, lim: &limitedReader{r: br, max: -1}}
	if head, _ := br.Peek(2); bytes.Equal(head, []byte{0x1f, 0x8b}) {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		rr.gz = gz
		rr.lim.r = gz
	}
	rr.sc = bufio.NewScanner(rr.lim)
	rr.sc.Buffer(make([]byte, 0, 16<<10), MaxRunLine)
	return rr, nil
}

// runHead is the part of a line that orders it.
type runHead struct {
	Seed      *uint64 `json:"seed"`
	Algorithm string  `json:"algorithm"`
	Group     string  `json:"group"`
}

// Next returns the next line (valid until the next call) and the group key
// and seed it is of; io.EOF after the last.
func (r *RunsReader) Next() (line []byte, key string, seed uint64, err error) {
	more := r.sc.Scan()
	// The scanner hands out the bytes read before the bound's error as a
	// last line: the error is the one to report.
	if r.lim.err != nil {
		return nil, "", 0, fmt.Errorf("%s:%d: %w", r.name, r.line+1, r.lim.err)
	}
	if !more {
		if err := r.sc.Err(); err != nil {
			if errors.Is(err, bufio.ErrTooLong) {
				return nil, "", 0, fmt.Errorf("%s:%d: a line longer than %d bytes is not a run", r.name, r.line+1, MaxRunLine)
			}
			return nil, "", 0, fmt.Errorf("%s:%d: %w", r.name, r.line+1, err)
		}
		return nil, "", 0, io.EOF
	}
	r.line++
	if r.maxLines >= 0 && r.line > r.maxLines {
		return nil, "", 0, fmt.Errorf("%s:%d: more runs than the %d its summary counts", r.name, r.line, r.maxLines)
	}
	line = r.sc.Bytes()
	var h runHead
	if err := json.Unmarshal(line, &h); err != nil || h.Seed == nil || h.Algorithm == "" {
		if err == nil {
			err = errors.New("no seed or algorithm")
		}
		return nil, "", 0, fmt.Errorf("%s:%d: not a run: %v", r.name, r.line, err)
	}
	key = h.Algorithm
	if h.Group != "" {
		key = h.Group
	}
	return line, key, *h.Seed, nil
}

// Run decodes the line Next returned.
func (r *RunsReader) Run(line []byte) (RunSummary, error) {
	var rs RunSummary
	if err := json.Unmarshal(line, &rs); err != nil {
		return rs, fmt.Errorf("%s:%d: %w", r.name, r.line, err)
	}
	return rs, nil
}

// Close releases the reader (not the underlying one).
func (r *RunsReader) Close() error {
	if r.gz != nil {
		return r.gz.Close()
	}
	return nil
}

// MergeRuns writes the runs of ins, each in run order, to w in run order
// (group rank, then seed; rank maps a group key to its rank), refusing a
// line of a group rank does not know, a file out of order and a run in two
// files. It returns the number of runs written.
func MergeRuns(w *RunsWriter, ins []*RunsReader, rank func(key string) (int, bool)) (int, error) {
	h := &runHeap{}
	next := func(i int) error {
		line, key, seed, err := ins[i].Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		k, ok := rank(key)
		if !ok {
			return fmt.Errorf("%s:%d: a run of %s, which the summaries do not aggregate", ins[i].name, ins[i].line, key)
		}
		heap.Push(h, runItem{rank: k, seed: seed, src: i, line: line})
		return nil
	}
	for i := range ins {
		if err := next(i); err != nil {
			return 0, err
		}
	}
	n := 0
	last := runItem{rank: -1}
	for h.Len() > 0 {
		it := heap.Pop(h).(runItem)
		switch {
		case it.rank == last.rank && it.seed == last.seed:
			return n, fmt.Errorf("%s:%d: seed %d of this group is also in %s", ins[it.src].name, ins[it.src].line, it.seed, ins[last.src].name)
		case it.rank < last.rank || (it.rank == last.rank && it.seed < last.seed):
			return n, fmt.Errorf("%s:%d: runs out of order", ins[it.src].name, ins[it.src].line)
		}
		if err := w.WriteLine(it.line); err != nil {
			return n, err
		}
		n++
		last = it
		// The scanner reuses its buffer: the line is written before the
		// next one is read.
		if err := next(it.src); err != nil {
			return n, err
		}
	}
	return n, nil
}

type runItem struct {
	rank int
	seed uint64
	src  int
	line []byte
}

type runHeap []runItem

func (h runHeap) Len() int { return len(h) }
func (h runHeap) Less(i, j int) bool {
	a, b := h[i], h[j]
	if a.rank != b.rank {
		return a.rank < b.rank
	}
	if a.seed != b.seed {
		return a.seed < b.seed
	}
	return a.src < b.src
}
func (h runHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *runHeap) Push(x any)   { *h = append(*h, x.(runItem)) }
func (h *runHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
