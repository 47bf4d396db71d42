// Command etcd-client is one candidate of a reality trial (package
// reality, docs/reality.md): an application that elects itself leader with
// the real etcd clientv3 concurrency.Session and Election, the way
// electsim's etcd model follows them (docs/algorithms/etcd.md): a session
// with -ttl, Campaign, lead until the session's Done() closes, then a new
// session and Campaign again. It reports what it sees on its standard
// output, one line per report, stamped with the machine's monotonic clock:
//
//	<CLOCK_MONOTONIC ns> acquired|lost|acting
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
	"go.uber.org/zap"

	"github.com/electsim/electsim/reality"
)

func main() {
	endpoints := flag.String("endpoints", "", "comma-separated etcd client `URLS`")
	ttl := flag.Duration("ttl", 60*time.Second, "the session's lease TTL (concurrency.WithTTL), whole seconds")
	name := flag.String("name", "leader", "the election's prefix")
	id := flag.String("id", "", "this candidate's value in the election")
	flag.Parse()
	if *endpoints == "" {
		fmt.Fprintln(os.Stderr, "etcd-client: -endpoints is required")
		os.Exit(2)
	}
	cli, err := clientv3.New(clientv3.Config{Endpoints: strings.Split(*endpoints, ","), Logger: zap.NewNop()})
	if err != nil {
		fmt.Fprintln(os.Stderr, "etcd-client:", err)
		os.Exit(1)
	}
	ctx := context.Background()
	for {
		s, err := concurrency.NewSession(cli, concurrency.WithTTL(int(ttl.Seconds())))
		if err != nil {
			fmt.Fprintln(os.Stderr, "etcd-client: session:", err)
			time.Sleep(100 * time.Millisecond)
			continue
		}
		e := concurrency.NewElection(s, *name)
		if err := e.Campaign(ctx, *id); err != nil {
			fmt.Fprintln(os.Stderr, "etcd-client: campaign:", err)
			s.Close()
			continue
		}
		report(reality.Acquired)
		lead(s, *ttl/3)
		report(reality.Lost)
		s.Close()
	}
}

// lead reports acting every period until the session is done.
func lead(s *concurrency.Session, period time.Duration) {
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-s.Done():
			return
		case <-t.C:
			report(reality.Acting)
		}
	}
}

func report(w reality.What) {
	fmt.Println(reality.FormatLine(reality.Mono(), w))
}
