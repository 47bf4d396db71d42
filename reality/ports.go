package reality

import "net"

// FreePort returns a loopback TCP port nobody listens on now: the kernel's
// choice for a listener on port 0, closed at once. Another process could
// take it before the server binds it; a server that fails to start is
// reported as the trial's error, never as a finding.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
