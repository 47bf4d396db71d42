package reality

import "strings"

// clientProxies gives each candidate a proxy of its own to every server
// (a story with a cut): candidate i's client is started with
// t.clientAddrs[i], and a cut of candidate i cuts only its proxies, so
// the other clients and the servers' own traffic pass.
func (t *trial) clientProxies() error {
	t.proxies = make([][]*Proxy, t.st.Candidates)
	t.clientAddrs = make([][]string, t.st.Candidates)
	for i := range t.st.Candidates {
		for _, a := range t.addrs {
			scheme, hostPort := splitScheme(a)
			p, err := NewProxy(hostPort)
			if err != nil {
				return err
			}
			t.proxies[i] = append(t.proxies[i], p)
			t.clientAddrs[i] = append(t.clientAddrs[i], scheme+p.Addr)
		}
	}
	return nil
}

// closeProxies closes every proxy (and the connections through it).
func (t *trial) closeProxies() {
	for _, ps := range t.proxies {
		for _, p := range ps {
			_ = p.Close()
		}
	}
}

// cut and restore act on candidate i's proxies.
func (t *trial) cut(i int) {
	for _, p := range t.proxies[i] {
		p.Cut()
	}
}

func (t *trial) restore(i int) {
	for _, p := range t.proxies[i] {
		p.Restore()
	}
}

// addrsFor is the server addresses candidate i's client is given: its
// proxies' in a story with a cut, else the servers'.
func (t *trial) addrsFor(i int) []string {
	if t.clientAddrs != nil {
		return t.clientAddrs[i]
	}
	return t.addrs
}

// splitScheme splits "http://127.0.0.1:2379" (etcd's client URLs) into
// "http://" and the host:port a proxy forwards to; a bare host:port has
// no scheme.
func splitScheme(addr string) (scheme, hostPort string) {
	if s, rest, ok := strings.Cut(addr, "://"); ok {
		return s + "://", rest
	}
	return "", addr
}
