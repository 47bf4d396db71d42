// Command redsync-client is one candidate of a reality trial (package
// reality, docs/reality.md): an application that elects itself leader
// with the real go-redsync v4 Mutex over go-redis v9, as go-redsync's
// README uses it, and reports what it sees on its standard output, one line
// per report, stamped with the machine's monotonic clock:
//
//	<CLOCK_MONOTONIC ns> acquired|extended|lost|acting
//
// The loop is the one electsim's lease model follows (docs/algorithms/lease.md,
// "ttl" and "redlock"): try to lock; holding, every -renew report acting
// and Extend; a failed Extend (false, or an error) is lost, and the
// application goes back to locking. It never reads Mutex.Until (validity
// check "never", the README's usage). With one address (-mode ttl) a failed
// Lock (one try) waits RetryPeriod + U[0,1)·JitterFactor·RetryPeriod; with
// several (-mode redlock) Lock keeps go-redsync's 32 tries and 50–250 ms
// delays and a failed Lock is called again at once.
package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"time"

	"github.com/go-redsync/redsync/v4"
	redsyncredis "github.com/go-redsync/redsync/v4/redis"
	"github.com/go-redsync/redsync/v4/redis/goredis/v9"
	goredislib "github.com/redis/go-redis/v9"

	"github.com/electsim/electsim/reality"
)

func main() {
	addrs := flag.String("addrs", "", "comma-separated Redis `ADDRS` (one: a single instance; several: Redlock masters)")
	key := flag.String("key", "leader", "the lock's `KEY`")
	ttl := flag.Duration("ttl", 10*time.Second, "the lock's expiry (WithExpiry)")
	renew := flag.Duration("renew", 0, "extend period (default ttl/3, the model's RenewInterval)")
	retry := flag.Duration("retry", 2*time.Second, "single instance: wait between lock attempts (RetryPeriod)")
	jitter := flag.Float64("jitter", 1.2, "single instance: JitterFactor of the wait")
	flag.Parse()
	if *addrs == "" {
		fmt.Fprintln(os.Stderr, "redsync-client: -addrs is required")
		os.Exit(2)
	}
	if *renew <= 0 {
		*renew = *ttl / 3
	}
	var pools []redsyncredis.Pool
	for _, a := range strings.Split(*addrs, ",") {
		pools = append(pools, goredis.NewPool(goredislib.NewClient(&goredislib.Options{Addr: a})))
	}
	rs := redsync.New(pools...)
	single := len(pools) == 1
	ctx := context.Background()
	for {
		var m *redsync.Mutex
		if single {
			m = rs.NewMutex(*key, redsync.WithExpiry(*ttl), redsync.WithTries(1))
		} else {
			m = rs.NewMutex(*key, redsync.WithExpiry(*ttl))
		}
		if err := m.LockContext(ctx); err != nil {
			if single {
				time.Sleep(*retry + time.Duration(rand.Float64()**jitter*float64(*retry)))
			}
			continue
		}
		report(reality.Acquired)
		hold(ctx, m, *renew)
		report(reality.Lost)
	}
}

// hold renews the lock every period until an extension fails.
func hold(ctx context.Context, m *redsync.Mutex, period time.Duration) {
	t := time.NewTicker(period)
	defer t.Stop()
	for range t.C {
		report(reality.Acting)
		ok, err := m.ExtendContext(ctx)
		if !ok || err != nil {
			return
		}
		report(reality.Extended)
	}
}

// report writes one report line; stdout is unbuffered, so the harness reads
// it at once (a paused process writes nothing: its reports after the pause
// carry the time it resumed).
func report(w reality.What) {
	fmt.Println(reality.FormatLine(reality.Mono(), w))
}
