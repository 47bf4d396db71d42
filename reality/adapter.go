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

// StartServers starts each instance in a folder of its own with no
// persistence (save disabled, appendonly no): the stories crash and pause
// clients, never a server, so what Redis keeps on disk plays no part.
func (redisAdapter) StartServers(g *Group, dir string, st *Story) ([]string, error) {
	var addrs []string
	for i := range st.Stores {
		port, err := FreePort()
		if err != nil {
			return nil, err
		}
		sub := filepath.Join(dir, fmt.Sprintf("redis%d", i+1))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			return nil, err
		}
		addr := "127.0.0.1:" + strconv.Itoa(port)
		argv := []string{"redis-server", "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "",
			"--appendonly", "no", "--dir", sub, "--daemonize", "no", "--logfile", filepath.Join(sub, "redis.log")}
		p, err := g.Start(fmt.Sprintf("redis%d", i+1), sub, argv, nil, nil)
		if err != nil {
			return nil, err
		}
		if err := waitRedis(p, addr); err != nil {
			return nil, err
		}
		addrs = append(addrs, addr)
	}
	return addrs, nil
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
