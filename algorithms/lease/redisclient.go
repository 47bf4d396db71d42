package lease

import (
	"time"

	"github.com/electsim/electsim/sim"
)

// A redlock round sends one command to every master through that master's
// go-redis client (go-redsync's redis/goredis/v9 adapter: conn.Eval runs
// EvalSha with the caller's context), and actOnPoolsAsync (mutex.go) waits
// for every master's answer. How long one master's answer can take is
// go-redis v9's, not go-redsync's (github.com/redis/go-redis, v9.22.0):
//
//   - options.go (Options.init): ReadTimeout 5s (3s before v9.22.0),
//     DialTimeout 5s, MaxRetries 3, MinRetryBackoff 10ms and
//     MaxRetryBackoff 1s (8ms and 512ms before v9.22.0), DialerRetries 5
//     with DialerRetryTimeout 100ms between (since v9.16.0);
//     ContextTimeoutEnabled false.
//   - redis.go (baseClient.processWithRetry, _process): up to MaxRetries+1
//     attempts; attempt k > 0 first sleeps RetryBackoff(k) — with the
//     caller's context, so a done context ends the retries — then takes a
//     connection; the socket read deadline is now + ReadTimeout, and the
//     caller's deadline shortens it only with ContextTimeoutEnabled
//     (baseClient.context returns context.Background() otherwise). A read
//     timeout is retried (shouldRetry with retryTimeout) and marks the
//     connection bad, so the next attempt dials.
//   - internal/pool/pool.go (ConnPool.dialConn): up to DialerRetries dials,
//     each bounded by DialTimeout and by the caller's context, 100ms apart;
//     a dial error is retried by processWithRetry (shouldRetry: an OpError
//     with Op "dial").
//
// So with the defaults one unreachable master keeps a round going for
// ReadTimeout + MaxRetries·(backoff + DialerRetries·DialTimeout + 4·100ms),
// about 81.3s, and go-redsync's Extend() (context.Background()) has no
// deadline of its own. The model runs that client per master: a dial is a
// probe round trip to the master (a Get; its answer stands for the TCP
// handshake) bounded by DialTimeout; an answer to an older attempt is
// ignored (its connection was dropped). The pooled connection is assumed
// established when the candidate starts. A refused connection (a crashed
// Redis process on a live host) fails at once in the real client; the
// model treats every unanswered dial as a timeout — the pessimistic
// reading: the round lasts longer.

// go-redis v9.22.0's fixed retry and dial back-offs (options.go).
const (
	goRedisMinRetryBackoff    = 10 * time.Millisecond
	goRedisMaxRetryBackoff    = time.Second
	goRedisDialerRetryTimeout = 100 * time.Millisecond
)

// tagRedisCall is the first of the per-master call timers (tag
// tagRedisCall+i for master i).
const tagRedisCall = 64

// callPhase is where one master's go-redis call stands.
type callPhase uint8

const (
	callDone     callPhase = iota // answered, failed, or no round
	callRead                      // the command is out; the timer is its read deadline
	callBackoff                   // between attempts: RetryBackoff
	callDial                      // a dial is out; the timer is DialTimeout
	callDialWait                  // between dials: DialerRetryTimeout
)

// masterCall is one master's go-redis call in the round in flight.
type masterCall struct {
	phase   callPhase
	want    int64 // the request ID whose answer counts
	attempt int   // processWithRetry's attempt, 0..MaxRetries
	dials   int   // dials made in this attempt
	timer   sim.TimerID
}

// retryBackoff is go-redis internal.RetryBackoff: min + U[0, min<<attempt),
// capped at max.
func (n *Node) retryBackoff(attempt int) time.Duration {
	d := goRedisMinRetryBackoff << uint(attempt)
	if d < goRedisMinRetryBackoff {
		return goRedisMaxRetryBackoff
	}
	d = goRedisMinRetryBackoff + n.env.Rand().DurationRange(0, d-1)
	return min(d, goRedisMaxRetryBackoff)
}

// callStart begins master i's call: on the pooled connection, or by
// dialling when the last one went bad.
func (n *Node) callStart(i int) {
	c := &n.rl.calls[i]
	c.dials = 0
	if n.rl.broken&(1<<i) != 0 {
		n.callDialOnce(i)
		return
	}
	n.reqSeq++
	c.phase, c.want = callRead, n.reqSeq
	n.arm(&c.timer, n.cfg.RedisReadTimeout, tagRedisCall+i)
	n.env.Send(RequestMessage(n.stores[i], n.redlockRequest(c.want)))
}

// callDialOnce sends one dial (a probe round trip) to master i.
func (n *Node) callDialOnce(i int) {
	c := &n.rl.calls[i]
	c.dials++
	n.reqSeq++
	c.phase, c.want = callDial, n.reqSeq
	n.arm(&c.timer, n.cfg.RedisDialTimeout, tagRedisCall+i)
	n.env.Send(RequestMessage(n.stores[i], &Request{ID: c.want, Op: OpGet, Key: n.cfg.Key}))
}

// callAnswer takes master i's reply r; it reports whether r is the
// command's answer (not a dial's, nor a stale one).
func (n *Node) callAnswer(i int, r *Reply) bool {
	c := &n.rl.calls[i]
	if c.want != r.ID {
		return false
	}
	switch c.phase {
	case callDial:
		n.rl.broken &^= 1 << i // connected: send the command
		n.callStart(i)
		return false
	case callRead:
		n.disarm(&c.timer)
		c.phase, c.want = callDone, 0
		return true
	}
	return false
}

// callTimer handles master i's call timer; it reports whether the call
// ended without an answer.
func (n *Node) callTimer(i int) bool {
	c := &n.rl.calls[i]
	c.timer = 0
	switch c.phase {
	case callRead:
		n.rl.broken |= 1 << i // a timed-out read leaves the connection bad
		return n.callRetry(i)
	case callBackoff:
		n.callStart(i)
	case callDial:
		if c.dials < n.cfg.RedisDialerRetries && !n.rl.ctxDone {
			c.phase = callDialWait
			n.arm(&c.timer, goRedisDialerRetryTimeout, tagRedisCall+i)
			return false
		}
		return n.callRetry(i) // a dial error: processWithRetry retries it
	case callDialWait:
		n.callDialOnce(i)
	}
	return false
}

// callRetry ends attempt k: sleep RetryBackoff(k+1) and go again, unless
// the retries are spent or the caller's context is done.
func (n *Node) callRetry(i int) bool {
	c := &n.rl.calls[i]
	if c.attempt >= n.cfg.RedisMaxRetries || n.rl.ctxDone {
		c.phase, c.want = callDone, 0
		return true
	}
	c.attempt++
	c.phase, c.want = callBackoff, 0
	n.arm(&c.timer, n.retryBackoff(c.attempt), tagRedisCall+i)
	return false
}

// callContextDone applies the caller's deadline to master i's call; it
// reports whether the call ended. A read in progress keeps its socket
// deadline unless ContextTimeoutEnabled; a back-off sleep and a dial
// honour the context.
func (n *Node) callContextDone(i int) bool {
	c := &n.rl.calls[i]
	if c.phase == callDone || c.phase == callRead && !n.cfg.ContextTimeoutEnabled {
		return false
	}
	if c.phase == callRead {
		n.rl.broken |= 1 << i // the read hit the context's deadline: a timeout, the connection is bad
	}
	n.disarm(&c.timer)
	c.phase, c.want = callDone, 0
	return true
}

// callsStop abandons every master's call.
func (n *Node) callsStop() {
	for i := range n.rl.calls {
		n.disarm(&n.rl.calls[i].timer)
		n.rl.calls[i] = masterCall{}
	}
}
