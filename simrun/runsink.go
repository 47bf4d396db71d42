package simrun

import (
	"slices"
	"sync"

	"github.com/electsim/electsim/reports"
)

// runsWindow bounds how far ahead of the oldest unwritten run a sweep's
// workers may go: the runs file is written in run order, so finished runs
// wait in memory for the ones before them, and at most this many do.
const runsWindow = 1024

// runsSink writes a sweep's runs to the runs file in job order, whatever
// order they finish in, holding at most runsWindow of them. A nil sink
// writes nothing.
type runsSink struct {
	mu      sync.Mutex
	cond    *sync.Cond
	w       *reports.RunsWriter
	next    int            // the next job index to write
	pending map[int][]byte // finished, waiting for those before them; nil: not run
	err     error
}

func newRunsSink(w *reports.RunsWriter) *runsSink {
	s := &runsSink{w: w, pending: map[int][]byte{}}
	s.cond = sync.NewCond(&s.mu)
	return s
}

// admit blocks until job i may start: fewer than runsWindow runs before it
// are unwritten. Every job before i has been handed out, so each is running
// or put, and the oldest unwritten one is always in progress somewhere.
func (s *runsSink) admit(i int) {
	if s == nil {
		return
	}
	s.mu.Lock()
	for i >= s.next+runsWindow {
		s.cond.Wait()
	}
	s.mu.Unlock()
}

// put hands over job i's line; nil for a job handed out but not run (a
// stopped sweep), which leaves no line.
func (s *runsSink) put(i int, line []byte) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pending[i] = line
	advanced := false
	for {
		l, ok := s.pending[s.next]
		if !ok {
			break
		}
		delete(s.pending, s.next)
		s.next++
		advanced = true
		if l != nil && s.err == nil {
			s.err = s.w.WriteLine(l)
		}
	}
	if advanced {
		s.cond.Broadcast()
	}
}

// close writes what is still pending, in order, and flushes the file.
func (s *runsSink) close() error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	keys := make([]int, 0, len(s.pending))
	for k := range s.pending {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if l := s.pending[k]; l != nil && s.err == nil {
			s.err = s.w.WriteLine(l)
		}
	}
	s.pending = nil
	if s.err != nil {
		return s.err
	}
	return s.w.Close()
}
