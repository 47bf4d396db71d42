package reality

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Adapter is one real system: its servers and its client. Adding a system
// (etcd, ZooKeeper, Consul, a Kubernetes API server) is one Adapter and a
// client main under reality/cmd.
type Adapter interface {
	// Package is the Debian package that ships Binary, named when it is
	// missing.
	Package() string
	// Binary is the server's executable.
	Binary() string
	// Client is the Go package of the client main (built once per command).
	Client() string
	// StartServers starts the story's st.Stores servers under dir, in g,
	// and returns their addresses once each answers.
	StartServers(g *Group, dir string, st *Story) ([]string, error)
	// ClientArgs are the client's arguments for the story.
	ClientArgs(st *Story, addrs []string) []string
}

// ClientBuilder is an Adapter whose client is not a Go main (ZooKeeper's
// Java client): it builds an executable at bin itself.
type ClientBuilder interface {
	BuildClient(ctx context.Context, bin string) error
}

// ServerRestarter is an Adapter that can restart one of its servers in
// place (a story's restart of a store).
type ServerRestarter interface {
	RestartServer(g *Group, dir string, st *Story, i int, addr string, wipe bool) error
}

// ParallelCapper is an Adapter whose trials are too heavy to run many at
// once: -workers is capped at MaxParallelTrials.
type ParallelCapper interface {
	MaxParallelTrials() int
}

// PartsChecker is an Adapter with real parts besides its Binary (a JDK,
// jars): Missing names the first one not installed, or returns nil.
type PartsChecker interface {
	Missing() *MissingError
}

// Adapters are the real systems by Story.Adapter.
var Adapters = map[string]Adapter{"redis": redisAdapter{}, "redlock": redisAdapter{}, "etcd": etcdAdapter{}, "zookeeper": zkAdapter{}}

// redisAdapter runs redis-server instances (one, or Redlock's masters) and
// the go-redsync client.
type redisAdapter struct{}

func (redisAdapter) Package() string { return "redis-server" }
func (redisAdapter) Binary() string  { return "redis-server" }
func (redisAdapter) Client() string  { return "github.com/electsim/electsim/reality/cmd/redsync-client" }

// redisSavePoints are redis.conf's shipped save points (Redis 7), the lease
// model's rdb persistence (docs/algorithms/lease.md, "Redis persistence").
const redisSavePoints = "3600 1 300 100 60 10000"

// redisPersistence is the redis-server flags of the lease model's
// persistence: none (no RDB, no AOF), rdb (the default: the shipped save
// points, appendonly no), aof_everysec and aof_always (appendonly yes with
// that appendfsync, the save points kept as redis.conf has them).
func redisPersistence(p string) ([]string, error) {
	switch p {
	case "none":
		return []string{"--save", "", "--appendonly", "no"}, nil
	case "", "rdb":
		return []string{"--save", redisSavePoints, "--appendonly", "no"}, nil
	case "aof_everysec":
		return []string{"--save", redisSavePoints, "--appendonly", "yes", "--appendfsync", "everysec"}, nil
	case "aof_always":
		return []string{"--save", redisSavePoints, "--appendonly", "yes", "--appendfsync", "always"}, nil
	}
	return nil, fmt.Errorf("persistence %q: none, rdb, aof_everysec or aof_always", p)
}

// redisName is server i's process and folder name.
func redisName(i int) string { return fmt.Sprintf("redis%d", i+1) }

// StartServers starts each instance in a folder of its own with the
// story's persistence.
func (redisAdapter) StartServers(g *Group, dir string, st *Story) ([]string, error) {
	var addrs []string
	for i := range st.Stores {
		port, err := FreePort()
		if err != nil {
			return nil, err
		}
		addr := "127.0.0.1:" + strconv.Itoa(port)
		if err := startRedis(g, dir, st, i, addr); err != nil {
			return nil, err
		}
		addrs = append(addrs, addr)
	}
	return addrs, nil
}

// startRedis starts server i on addr in its folder under dir and waits
// until it answers.
func startRedis(g *Group, dir string, st *Story, i int, addr string) error {
	sub := filepath.Join(dir, redisName(i))
	if err := os.MkdirAll(sub, 0o755); err != nil {
		return err
	}
	persist, err := redisPersistence(st.Persistence)
	if err != nil {
		return err
	}
	_, port, _ := strings.Cut(addr, ":")
	argv := append([]string{"redis-server", "--port", port, "--bind", "127.0.0.1"}, persist...)
	argv = append(argv, "--dir", sub, "--daemonize", "no", "--logfile", filepath.Join(sub, "redis.log"))
	p, err := g.Start(redisName(i), sub, argv, nil, nil)
	if err != nil {
		return err
	}
	return waitRedis(p, addr)
}

// RestartServer kills server i (SIGKILL: no shutdown save, whatever its
// persistence wrote to the disk stays, the page cache included) and
// starts it again on the same address and folder; wipe first removes
// every file it wrote (a replaced disk).
func (redisAdapter) RestartServer(g *Group, dir string, st *Story, i int, addr string, wipe bool) error {
	if p := g.Named(redisName(i)); p != nil {
		p.Kill()
	}
	if wipe {
		if err := os.RemoveAll(filepath.Join(dir, redisName(i))); err != nil {
			return err
		}
	}
	return startRedis(g, dir, st, i, addr)
}

// waitRedis waits until the server answers PING (at most 10 s).
func waitRedis(p *Proc, addr string) error {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if exited, err := p.Exited(); exited {
			return fmt.Errorf("%s exited before answering: %v", p.Name, err)
		}
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			_ = c.SetDeadline(time.Now().Add(time.Second))
			_, werr := c.Write([]byte("PING\r\n"))
			line, rerr := bufio.NewReader(c).ReadString('\n')
			c.Close()
			if werr == nil && rerr == nil && strings.HasPrefix(line, "+PONG") {
				return nil
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("%s did not answer PING at %s within 10s", p.Name, addr)
}

func (redisAdapter) ClientArgs(st *Story, addrs []string) []string {
	return []string{"-addrs", strings.Join(addrs, ","), "-ttl", st.TTL.String(), "-renew", st.Renew.String(),
		"-retry", st.Retry.String(), "-jitter", strconv.FormatFloat(st.Jitter, 'g', -1, 64)}
}
