package reality

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// etcdAdapter runs etcd servers (Debian's etcd-server, 3.4) and the
// clientv3 concurrency.Election client.
type etcdAdapter struct{}

func (etcdAdapter) Package() string { return "etcd-server" }
func (etcdAdapter) Binary() string  { return "etcd" }
func (etcdAdapter) Client() string  { return "github.com/electsim/electsim/reality/cmd/etcd-client" }

// StartServers starts a one-member cluster per server asked for (the
// stories use one: the model's etcd is one logical service node).
func (etcdAdapter) StartServers(g *Group, dir string, st *Story) ([]string, error) {
	var urls []string
	for i := range st.Stores {
		cport, err := FreePort()
		if err != nil {
			return nil, err
		}
		pport, err := FreePort()
		if err != nil {
			return nil, err
		}
		name := fmt.Sprintf("etcd%d", i+1)
		sub := filepath.Join(dir, name)
		if err := os.MkdirAll(sub, 0o755); err != nil {
			return nil, err
		}
		client := "http://127.0.0.1:" + strconv.Itoa(cport)
		peer := "http://127.0.0.1:" + strconv.Itoa(pport)
		argv := []string{"etcd", "--name", name, "--data-dir", filepath.Join(sub, "data"),
			"--listen-client-urls", client, "--advertise-client-urls", client,
			"--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
			"--initial-cluster", name + "=" + peer, "--log-level", "error"}
		logf, err := os.Create(filepath.Join(sub, "etcd.log"))
		if err != nil {
			return nil, err
		}
		p, err := g.Start(name, sub, argv, logf, logf)
		if err != nil {
			logf.Close()
			return nil, err
		}
		go func() { <-p.Done(); logf.Close() }()
		if err := waitEtcd(p, client); err != nil {
			return nil, err
		}
		urls = append(urls, client)
	}
	return urls, nil
}

// waitEtcd waits until the server's /health says true (at most 20 s).
func waitEtcd(p *Proc, url string) error {
	hc := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if exited, err := p.Exited(); exited {
			return fmt.Errorf("%s exited before it was healthy: %v", p.Name, err)
		}
		if resp, err := hc.Get(url + "/health"); err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if strings.Contains(string(b), `"health":"true"`) {
				return nil
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("%s was not healthy at %s within 20s", p.Name, url)
}

func (etcdAdapter) ClientArgs(st *Story, urls []string) []string {
	return []string{"-endpoints", strings.Join(urls, ","), "-ttl", st.TTL.String()}
}
