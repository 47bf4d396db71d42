package sim_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/sim"
)

// persistRig: n1 (fsync constant 5 ms) runs script at its timer (tag 1, 10 ms)
// and at tag 2 (12 ms); n2 records; latency constant 1 ms.
func persistRig(at10, at12 func(env sim.Env)) (*sim.Sim, *probeLog, *sim.Recorder, sim.NodeID) {
	s := sim.New(sim.Config{Link: sim.LinkConfig{Latency: sim.Constant(time.Millisecond)}})
	rec := &sim.Recorder{}
	s.AddSink(rec)
	p := newProbe(&probeLog{s: s})
	p.onStart = func(p *probe, _ []byte) {
		p.set(10*time.Millisecond, 1)
		p.set(12*time.Millisecond, 2)
	}
	p.onTimer = func(p *probe, _ sim.TimerID, tag int) {
		switch {
		case tag == 1 && at10 != nil:
			at10(p.env)
		case tag == 2 && at12 != nil:
			at12(p.env)
		}
	}
	id := s.AddNode("n1", p, sim.Fsync(sim.Constant(5*time.Millisecond)))
	l := &probeLog{s: s}
	s.AddNode("n2", newProbe(l))
	return s, l, rec, id
}

func send(env sim.Env, a int64) { env.Send(sim.Message{Kind: kindData, To: 1, A: a}) }

type arrival struct {
	A      int64
	At     sim.Time
	SentAt sim.Time
}

func arrivals(rec *sim.Recorder, l *probeLog) []arrival {
	var out []arrival
	msgs := l.of("msg")
	for i, d := range records(rec, sim.RecDeliver, 1) {
		out = append(out, arrival{msgs[i].A, d.At, d.SentAt})
	}
	return out
}

// Env.Persist (persist.go): a message sent before Persist leaves at once; a
// message sent after it waits in the process until the write is durable and
// then takes its latency (arrival = completion + 1 ms). Writes are serial: a
// second write at 12 ms starts when the first completes (15 ms) and is durable
// at 20 ms, and messages sent after it wait for that.
func TestPersistHoldsLaterSendsUntilDurable(t *testing.T) {
	s, l, rec, id := persistRig(func(env sim.Env) {
		send(env, 1)
		env.Persist([]byte("a"))
		send(env, 2)
	}, func(env sim.Env) {
		send(env, 3)
		env.Persist([]byte("b"))
		send(env, 4)
	})
	var durableAt14, durableAt16 []byte
	s.At(ms(14), func() { durableAt14 = s.Durable(id) })
	s.At(ms(16), func() { durableAt16 = s.Durable(id) })
	require.Equal(t, sim.OutcomeQuiescent, s.Run())
	require.Nil(t, durableAt14)
	require.Equal(t, []byte("a"), durableAt16)
	require.Equal(t, []byte("b"), s.Durable(id))

	require.Equal(t, []arrival{
		{1, ms(11), ms(10)},
		{2, ms(16), ms(15)}, // held until 15 ms
		{3, ms(16), ms(15)}, // sent at 12 ms, behind the pending write "a"
		{4, ms(21), ms(20)}, // held until "b" is durable at 20 ms
	}, arrivals(rec, l))

	persists := records(rec, sim.RecPersist, id)
	require.Len(t, persists, 2)
	require.Equal(t, []int64{int64(ms(15)), int64(ms(20))}, []int64{persists[0].B, persists[1].B})
	done := records(rec, sim.RecPersistDone, id)
	require.Len(t, done, 2)
	require.Equal(t, []sim.Time{ms(15), ms(20)}, []sim.Time{done[0].At, done[1].At})
}

// A crash before the write completes loses the write and the messages held
// behind it (DropSenderCrashed), also when the node restarts before they were
// due to leave; the restart sees the previous durable state.
func TestPersistCrashBeforeCompletionLosesWriteAndHeldMessages(t *testing.T) {
	for _, restartAt := range []sim.Time{ms(14), ms(30)} {
		var restored []string
		s := sim.New(sim.Config{Link: sim.LinkConfig{Latency: sim.Constant(time.Millisecond)}})
		rec := &sim.Recorder{}
		s.AddSink(rec)
		l := &probeLog{s: s}
		p := newProbe(l)
		p.onStart = func(p *probe, b []byte) {
			restored = append(restored, string(b))
			if l.starts == 1 {
				p.env.Persist([]byte("old")) // durable at 5 ms
				p.set(10*time.Millisecond, 1)
			}
		}
		p.onTimer = func(p *probe, _ sim.TimerID, _ int) {
			p.env.Persist([]byte("new")) // would be durable at 15 ms
			send(p.env, 1)
			send(p.env, 2)
		}
		id := s.AddNode("n1", p, sim.Fsync(sim.Constant(5*time.Millisecond)))
		dl := &probeLog{s: s}
		s.AddNode("n2", newProbe(dl))
		s.At(ms(13), func() { s.Crash(id) })
		s.At(restartAt, func() { s.Restart(id, true) })
		require.Equal(t, sim.OutcomeQuiescent, s.Run())

		require.Equal(t, []string{"", "old"}, restored, "restart at %v", restartAt)
		require.Equal(t, []byte("old"), s.Durable(id))
		require.Empty(t, dl.of("msg"))
		require.Len(t, records(rec, sim.RecPersistDone, id), 1, "only the first write completed")
		drops := records(rec, sim.RecDrop, 1)
		require.Len(t, drops, 2)
		for _, d := range drops {
			require.Equal(t, sim.DropSenderCrashed, d.Reason)
			require.Equal(t, sim.NodeID(0), d.Peer)
			require.Equal(t, ms(15), d.At, "dropped when it would have left")
		}
		st := s.Stats()
		require.Equal(t, uint64(2), st.Sent[kindData])
		require.Equal(t, uint64(2), st.Dropped[kindData])
		require.Equal(t, uint64(2), st.DropReasons[sim.DropSenderCrashed])
	}
}

// Zero fsync latency (the default) makes Persist durable at once and holds
// nothing.
func TestPersistZeroLatencyImmediate(t *testing.T) {
	s := sim.New(sim.Config{Link: sim.LinkConfig{Latency: sim.Constant(time.Millisecond)}})
	rec := &sim.Recorder{}
	s.AddSink(rec)
	var durableInHandler []byte
	p := newProbe(&probeLog{s: s})
	p.onStart = func(p *probe, _ []byte) {
		p.env.Persist([]byte("x"))
		durableInHandler = s.Durable(p.env.ID())
		send(p.env, 1)
	}
	s.AddNode("n1", p)
	l := &probeLog{s: s}
	s.AddNode("n2", newProbe(l))
	require.Equal(t, sim.OutcomeQuiescent, s.Run())
	require.Equal(t, []byte("x"), durableInHandler)
	require.Equal(t, []arrival{{1, ms(1), 0}}, arrivals(rec, l))
}

// Persist copies its argument: mutating the buffer afterwards changes nothing.
func TestPersistCopiesData(t *testing.T) {
	s := sim.New(sim.Config{})
	p := newProbe(&probeLog{s: s})
	p.onStart = func(p *probe, _ []byte) {
		buf := []byte("abc")
		p.env.Persist(buf)
		buf[0] = 'X'
	}
	id := s.AddNode("n1", p, sim.Fsync(sim.Constant(time.Millisecond)))
	s.Run()
	require.Equal(t, []byte("abc"), s.Durable(id))
}
