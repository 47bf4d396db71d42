package reality

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/electsim/electsim/checker"
	"github.com/electsim/electsim/sim"
)

// TrialResult is one real trial: its reports, the records they became,
// the checker's verdict and what it measured.
type TrialResult struct {
	Index   int
	Reports []Report
	Records []sim.Record
	Report  checker.Report
	Measure Measure
	// Skipped lists the faults not applied (no holder to hit, a server
	// that did not restart), one line each:
	// such a trial is not compared (Result.Compared).
	Skipped []string
	// Origin is how long after the clients started the first one reported
	// acquiring: the story's clock (fault times, the trial's length)
	// starts there.
	Origin time.Duration
}

// trial is one trial under way.
type trial struct {
	st     *Story
	ad     Adapter
	client string // the client binary
	dir    string
	addrs  []string
	// proxies[i] and clientAddrs[i] are candidate i's own proxies to the
	// servers and their addresses, in a story with a cut (clientProxies).
	proxies     [][]*Proxy
	clientAddrs [][]string
	g           Group
	start       time.Duration
	origin      time.Duration // the story's time 0, from start: the first acquisition
	rng         *rand.Rand
	index       int // this trial's number, of trials (stratified fault times)
	trials      int
	mu          sync.Mutex
	reports     []Report
	procs       []*Proc // the current process of each candidate
	leading     []bool  // what each candidate last reported
	readers     sync.WaitGroup
	badLine     error
}

// RunTrial plays the story once with real processes under a new folder in
// tmp (removed after), and judges it. ctx cancelled (SIGINT) stops every
// process at once and returns ctx's error.
//
// The trial is number index of trials: its faults' times are drawn from
// the index-th of that many equal slices of each fault's range
// (stratified), so a run's trials spread over the range as the simulated
// runs' do (docs/reality.md, "The fault times").
func RunTrial(ctx context.Context, st *Story, client, tmp string, index, trials int, seed uint64) (*TrialResult, error) {
	ad, ok := Adapters[st.Adapter]
	if !ok {
		return nil, fmt.Errorf("no adapter %q", st.Adapter)
	}
	dir, err := os.MkdirTemp(tmp, fmt.Sprintf("trial%d-", index))
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	t := &trial{st: st, ad: ad, client: client, dir: dir, rng: rand.New(rand.NewPCG(seed, uint64(index))), index: index, trials: max(1, trials),
		procs: make([]*Proc, st.Candidates), leading: make([]bool, st.Candidates)}
	defer t.readers.Wait()
	defer t.g.Stop()
	stop := context.AfterFunc(ctx, t.g.Stop)
	defer stop()

	if t.addrs, err = ad.StartServers(&t.g, dir, st); err != nil {
		return nil, err
	}
	if st.HasCut() {
		defer t.closeProxies() // after the group stopped: no client is left to use them
		if err := t.clientProxies(); err != nil {
			return nil, err
		}
	}
	t.start = Mono()
	for i := range st.Candidates {
		if err := t.startClient(i); err != nil {
			return nil, err
		}
	}
	// The story's clock starts at the first acquisition, as the
	// simulation's elections take milliseconds: Go clients lead within
	// milliseconds of their start, a JVM (ZooKeeper's Curator client) only
	// after seconds of class loading on a busy machine, and a fault aimed
	// at the leader before anyone leads would find no one.
	if !t.waitFirstHolder(ctx, st.Length) {
		return nil, ctx.Err()
	}
	res := &TrialResult{Index: index, Origin: t.origin}
	for _, a := range t.schedule() {
		if !t.sleepUntil(ctx, t.origin+a.at) {
			return nil, ctx.Err()
		}
		if msg := a.do(); msg != "" {
			res.Skipped = append(res.Skipped, msg)
		}
	}
	if !t.sleepUntil(ctx, t.origin+st.Length) {
		return nil, ctx.Err()
	}
	end := Mono()
	t.g.Stop()
	t.readers.Wait()
	if t.badLine != nil {
		return nil, t.badLine
	}
	w := World{Candidates: st.Candidates, Stores: st.Stores}
	res.Reports = t.reports
	res.Records = Convert(w, t.reports, t.start, end)
	res.Report = checker.Run(w.Input(res.Records))
	res.Measure = MeasureReport(res.Report)
	return res, nil
}

// action is one step of a trial's fault schedule, at a time from the
// trial's start; do returns a line when it found nothing to act on.
type action struct {
	at time.Duration
	do func() string
}

// schedule draws each fault's time and length and lists the steps in time
// order: the fault, then its end.
func (t *trial) schedule() []action {
	var out []action
	for i, f := range t.st.Faults {
		at := stratified(t.rng, f.AtMin, f.AtMax, t.index, t.trials)
		length := draw(t.rng, f.ForMin, f.ForMax)
		var victim = -1
		name := fmt.Sprintf("faults[%d]", i)
		if f.Kind == FaultRestartStore {
			out = append(out, action{at: at, do: func() string { return t.restartStore(name, f) }})
			continue
		}
		out = append(out, action{at: at, do: func() string {
			victim = t.holder()
			if victim < 0 {
				return name + ": " + string(f.Kind) + " skipped: no holder"
			}
			t.hit(f.Kind, victim)
			return ""
		}})
		if length > 0 {
			out = append(out, action{at: at + length, do: func() string {
				if victim >= 0 {
					t.heal(f.Kind, victim)
				}
				return ""
			}})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].at < out[j].at })
	return out
}

// stratified draws a time from the index-th of n equal slices of
// [lo, hi]. A fault's phase against the system's own periods decides
// much of what a trial measures (etcd's keep-alives go out on clientv3's
// 500 ms send-loop passes, counted from the first acquisition, as the
// story's clock is), and n plain draws can bunch: seed 1's ten draws of
// etcd-cut-off's 6-7 s put six within 110 ms after a half second, most
// often just after a keep-alive, and the real mean failover came out
// longer than the simulated runs', whose 200 draws cover the range.
func stratified(r *rand.Rand, lo, hi time.Duration, index, n int) time.Duration {
	if hi <= lo || n <= 1 {
		return draw(r, lo, hi)
	}
	width := (hi - lo) / time.Duration(n)
	from := lo + time.Duration(index%n)*width
	return draw(r, from, from+width)
}

func draw(r *rand.Rand, lo, hi time.Duration) time.Duration {
	if hi <= lo {
		return lo
	}
	return lo + time.Duration(r.Int64N(int64(hi-lo)+1))
}

// holder is the candidate that last reported holding the lock and has not
// reported losing it (the lowest such, if several), or -1.
func (t *trial) holder() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	for i, l := range t.leading {
		if l {
			return i
		}
	}
	return -1
}

// note adds a report stamped by the harness.
func (t *trial) note(node int, w What) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.reports = append(t.reports, Report{Mono: Mono(), Node: node, What: w})
}

// hit applies a fault to candidate i's process. The report is stamped
// before the signal is sent: nothing the process reports can come between.
func (t *trial) hit(k FaultKind, i int) {
	p := t.proc(i)
	switch k {
	case FaultPause:
		t.note(i, Paused)
		_ = p.Pause()
	case FaultCrash:
		t.note(i, Crashed)
		p.Kill()
		t.mu.Lock()
		t.leading[i] = false
		t.mu.Unlock()
	case FaultCut:
		t.note(i, Cut)
		t.cut(i)
	}
}

// restartStore restarts server f.Store in place; a failure (the adapter
// cannot, or the server did not come back) skips the fault.
func (t *trial) restartStore(name string, f Fault) string {
	r, ok := t.ad.(ServerRestarter)
	if !ok {
		return name + ": " + string(f.Kind) + " skipped: the adapter restarts no server"
	}
	if err := r.RestartServer(&t.g, t.dir, t.st, f.Store, t.addrs[f.Store], f.Wipe); err != nil {
		return name + ": " + string(f.Kind) + " skipped: " + err.Error()
	}
	return ""
}

// heal ends a fault: SIGCONT, or a new client process.
func (t *trial) heal(k FaultKind, i int) {
	switch k {
	case FaultPause:
		t.note(i, Resumed)
		_ = t.proc(i).Resume()
	case FaultCrash:
		t.note(i, Restarted)
		_ = t.startClient(i) // a failure leaves the candidate down: the trial goes on
	case FaultCut:
		t.note(i, Healed)
		t.restore(i)
	}
}

func (t *trial) proc(i int) *Proc {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.procs[i]
}

// startClient starts candidate i's client and a reader of its reports.
func (t *trial) startClient(i int) error {
	r, w := io.Pipe()
	argv := append([]string{t.client}, t.ad.ClientArgs(t.st, t.addrsFor(i))...)
	logf, err := os.Create(filepath.Join(t.dir, fmt.Sprintf("client-n%d.err", i+1)))
	if err != nil {
		return err
	}
	p, err := t.g.Start(fmt.Sprintf("client n%d", i+1), t.dir, argv, w, logf)
	if err != nil {
		logf.Close()
		return err
	}
	t.mu.Lock()
	t.procs[i] = p
	t.mu.Unlock()
	t.readers.Add(2)
	go func() { // close the pipe when the process ends, so the reader ends
		defer t.readers.Done()
		<-p.Done()
		w.Close()
		logf.Close()
	}()
	go func() {
		defer t.readers.Done()
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			rep, err := ParseLine(i, sc.Text())
			t.mu.Lock()
			if err != nil {
				if t.badLine == nil {
					t.badLine = fmt.Errorf("client n%d: %v", i+1, err)
				}
			} else {
				t.reports = append(t.reports, rep) // stamped by the process: a killed one's last lines still tell the truth
			}
			if err == nil && t.procs[i] == p { // only the current process says who holds now
				switch rep.What {
				case Acquired, Extended, Acting:
					t.leading[i] = true
				case Lost:
					t.leading[i] = false
				}
			}
			t.mu.Unlock()
		}
		_, _ = io.Copy(io.Discard, r)
	}()
	return nil
}

// waitFirstHolder sets t.origin when a client first reports holding, or
// after limit if none does (the faults then find no holder and the trial
// is not compared); false when ctx is cancelled.
func (t *trial) waitFirstHolder(ctx context.Context, limit time.Duration) bool {
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		t.origin = Mono() - t.start
		if t.holder() >= 0 || t.origin >= limit {
			return true
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			return false
		}
	}
}

// sleepUntil waits until the trial's clock (from its start) reads at, or
// ctx ends (false).
func (t *trial) sleepUntil(ctx context.Context, at time.Duration) bool {
	d := at - (Mono() - t.start)
	if d <= 0 {
		return ctx.Err() == nil
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
		return true
	case <-ctx.Done():
		return false
	}
}
