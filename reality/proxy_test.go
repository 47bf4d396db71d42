package reality

import (
	"bufio"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// echoServer answers every line with the same line, until closed.
func echoServer(t *testing.T) (addr string, stop func()) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				r := bufio.NewReader(c)
				for {
					line, err := r.ReadString('\n')
					if err != nil {
						return
					}
					if _, err := c.Write([]byte(line)); err != nil {
						return
					}
				}
			}()
		}
	}()
	return l.Addr().String(), func() { l.Close(); <-done }
}

// roundTrip sends one line through c and reads the answer, giving up after
// wait (a deadline on the socket, not a sleep: a cut link answers nothing).
func roundTrip(c net.Conn, r *bufio.Reader, line string, wait time.Duration) (string, error) {
	if _, err := c.Write([]byte(line + "\n")); err != nil {
		return "", err
	}
	if err := c.SetReadDeadline(time.Now().Add(wait)); err != nil {
		return "", err
	}
	return r.ReadString('\n')
}

func TestProxyForwardsCutsAndRestores(t *testing.T) {
	addr, stop := echoServer(t)
	defer stop()
	p, err := NewProxy(addr)
	require.NoError(t, err)
	defer p.Close()

	c, err := net.Dial("tcp", p.Addr)
	require.NoError(t, err)
	defer c.Close()
	r := bufio.NewReader(c)
	got, err := roundTrip(c, r, "one", 5*time.Second)
	require.NoError(t, err)
	require.Equal(t, "one\n", got, "an open link forwards")

	p.Cut()
	_, err = roundTrip(c, r, "two", 200*time.Millisecond)
	var ne net.Error
	require.ErrorAs(t, err, &ne, "a cut link answers nothing")
	require.True(t, ne.Timeout())

	p.Restore()
	require.NoError(t, c.SetReadDeadline(time.Now().Add(5*time.Second)))
	got, err = r.ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "two\n", got, "what was sent during the cut arrives after the heal, as TCP retransmits it")
}

func TestProxyHoldsNewConnectionsWhileCut(t *testing.T) {
	addr, stop := echoServer(t)
	defer stop()
	p, err := NewProxy(addr)
	require.NoError(t, err)
	defer p.Close()
	p.Cut()
	c, err := net.Dial("tcp", p.Addr) // the proxy's listener accepts; nothing reaches the server
	require.NoError(t, err)
	defer c.Close()
	r := bufio.NewReader(c)
	_, err = roundTrip(c, r, "x", 200*time.Millisecond)
	require.Error(t, err)
	p.Restore()
	require.NoError(t, c.SetReadDeadline(time.Now().Add(5*time.Second)))
	got, err := r.ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "x\n", got)
}

func TestProxyCloseEndsEverything(t *testing.T) {
	addr, stop := echoServer(t)
	defer stop()
	p, err := NewProxy(addr)
	require.NoError(t, err)
	c, err := net.Dial("tcp", p.Addr)
	require.NoError(t, err)
	defer c.Close()
	p.Cut()
	require.NoError(t, p.Close(), "Close returns with a cut link and a live connection (goleak checks the goroutines)")
	_, err = net.Dial("tcp", p.Addr)
	require.Error(t, err, "a closed proxy listens no more")
}
