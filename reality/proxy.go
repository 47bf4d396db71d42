package reality

import (
	"net"
	"sync"
)

// Proxy forwards TCP connections from a loopback port to a server, and can
// cut the link as a network partition does: while cut, no byte passes in
// either direction and new connections wait; TCP's own buffers and
// retransmissions hold what was sent, so on Restore the bytes arrive in
// order, as after a healed partition (the client's own timeouts decide
// whether it gave up meanwhile). Toxiproxy is not served here; this is the
// harness's own, kept small.
type Proxy struct {
	// Addr is where clients connect (127.0.0.1:port).
	Addr   string
	target string
	l      net.Listener

	mu    sync.Mutex
	open  chan struct{} // closed while the link passes bytes
	conns map[net.Conn]struct{}
	wg    sync.WaitGroup
}

// NewProxy listens on a loopback port chosen by the kernel and forwards to
// target.
func NewProxy(target string) (*Proxy, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Proxy{Addr: l.Addr().String(), target: target, l: l, open: make(chan struct{}), conns: map[net.Conn]struct{}{}}
	close(p.open)
	p.wg.Add(1)
	go p.accept()
	return p, nil
}

// Cut stops every byte in both directions until Restore.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.open:
		p.open = make(chan struct{})
	default: // already cut
	}
}

// Restore lets bytes pass again.
func (p *Proxy) Restore() {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.open:
	default:
		close(p.open)
	}
}

// gate returns the channel that is closed while the link is up.
func (p *Proxy) gate() chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.open
}

// Close stops listening, closes every connection and waits for the
// forwarding goroutines.
func (p *Proxy) Close() error {
	err := p.l.Close()
	p.mu.Lock()
	for c := range p.conns {
		c.Close()
	}
	select {
	case <-p.open:
	default:
		close(p.open) // release goroutines waiting at the gate
	}
	p.mu.Unlock()
	p.wg.Wait()
	return err
}

func (p *Proxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.conns == nil {
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.l.Accept()
		if err != nil {
			return
		}
		p.wg.Add(1)
		go p.serve(c)
	}
}

func (p *Proxy) serve(client net.Conn) {
	defer p.wg.Done()
	p.track(client)
	<-p.gate() // a connection made during a cut waits, as a SYN would be retransmitted
	server, err := net.Dial("tcp", p.target)
	if err != nil {
		client.Close()
		return
	}
	p.track(server)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); p.pipe(server, client) }()
	go func() { defer wg.Done(); p.pipe(client, server) }()
	wg.Wait()
	p.mu.Lock()
	delete(p.conns, client)
	delete(p.conns, server)
	p.mu.Unlock()
}

// pipe copies src to dst, holding each chunk at the gate while cut.
func (p *Proxy) pipe(dst, src net.Conn) {
	defer dst.Close()
	defer src.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			<-p.gate()
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil { // EOF or a closed connection: the other direction ends too
			return
		}
	}
}
