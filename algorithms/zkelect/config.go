package zkelect

import (
	"slices"
	"strings"
	"time"

	"github.com/electsim/electsim/registry"
)

// The connection-state error policies of Curator's LeaderLatch.
const (
	// PolicyStandard is StandardConnectionStateErrorPolicy, Curator's
	// default: SUSPENDED and LOST are errors, so the latch gives up
	// leadership as soon as the connection is suspended.
	PolicyStandard = "standard"
	// PolicySession is SessionConnectionStateErrorPolicy: only LOST is an
	// error, so the latch keeps leadership through SUSPENDED, trusting the
	// session to still be alive.
	PolicySession = "session"
)

// CuratorVersions are the Curator releases whose LeaderLatch behaviour
// Config.CuratorVersion selects (read at the apache-curator-5.x.0 tags of
// curator-recipes' LeaderLatch.java):
//
//   - up to 5.3: RECONNECTED resets the latch (a new znode at the back of
//     the queue) when SUSPENDED is an error or it does not lead;
//   - 5.4 (CURATOR-644/645): RECONNECTED re-reads the children instead and
//     keeps the znode; checkLeadership gives up leadership when the znode
//     is not first;
//   - 5.7 (CURATOR-696): when its znode is first, checkLeadership reads its
//     ephemeralOwner and resets unless it is this session;
//   - 5.8 (CURATOR-724): RECONNECTED re-reads the children whatever the
//     policy and leadership.
var CuratorVersions = []string{"5.0", "5.2", "5.3", "5.4", "5.5", "5.6", "5.7", "5.8", "5.9"}

// DefaultCuratorVersion is the newest release read (apache-curator-5.9.0).
const DefaultCuratorVersion = "5.9"

// Config holds a candidate's parameters. Start from DefaultConfig.
type Config struct {
	// Name is the latch: znodes live under /Name/. Default "leader".
	Name string
	// SessionTimeout is the timeout the client asks for; the server
	// negotiates it into [2·tickTime, 20·tickTime]. Default 60s (Curator's
	// default sessionTimeoutMs).
	SessionTimeout time.Duration
	// Policy is PolicyStandard (default) or PolicySession.
	Policy string
	// RequestTimeout bounds a create, children or watch request; then it is
	// sent again. Default 5s.
	RequestTimeout time.Duration
	// RejoinDelay is how long a candidate whose session was lost waits
	// before it opens a new one. Default 0.
	RejoinDelay time.Duration
	// CuratorVersion is the Curator release (one of CuratorVersions) whose
	// LeaderLatch reconnection behaviour the candidate follows. Default
	// DefaultCuratorVersion.
	CuratorVersion string
	// ConnectServers is how many servers the client's connect string
	// names. ZooKeeper's client tries them in turn after a disconnection,
	// and sleeps a spin delay (1 s) before trying again the one it was last
	// connected to (StaticHostProvider.next, called as next(1000) by
	// ClientCnxn.SendThread.run): with one server, before every attempt.
	// Default 3, a three-server ensemble's connect string.
	ConnectServers int
	// Token is the fencing token the leader writes with: TokenNone (the
	// default: Curator's LeaderLatch hands the application only
	// getOurPath(), no zxid) or TokenCzxid, the latch znode's creation zxid,
	// which the application reads with exists()/getData() on getOurPath()
	// before it acts: one more round trip to the ensemble (an application
	// addition; a read that times out is sent again, delaying the act).
	Token string
}

// The values of Config.Token.
const (
	TokenNone  = "none"
	TokenCzxid = "czxid"
)

// minor is CuratorVersion's minor number (5.x); Validate has checked it.
func (c Config) minor() int {
	if len(c.CuratorVersion) == 3 {
		return int(c.CuratorVersion[2] - '0')
	}
	return 0
}

// DefaultConfig returns the defaults.
func DefaultConfig() Config {
	return Config{Name: "leader", SessionTimeout: 60 * time.Second, Policy: PolicyStandard, RequestTimeout: 5 * time.Second, CuratorVersion: DefaultCuratorVersion, Token: TokenNone, ConnectServers: 3}
}

// Validate reports the first invalid field, naming Go fields.
func (c Config) Validate() error { return c.validate(registry.GoName) }

func (c Config) validate(n registry.Namer) error {
	fail := func(fields []string, format string, args ...any) error {
		return registry.Fail("zkelect", fields, format, args...)
	}
	switch {
	case c.Name == "":
		return fail([]string{"Name"}, "%s must not be empty", n("Name"))
	case c.SessionTimeout <= 0:
		return fail([]string{"SessionTimeout"}, "%s must be positive, got %v", n("SessionTimeout"), c.SessionTimeout)
	case c.Policy != PolicyStandard && c.Policy != PolicySession:
		return fail([]string{"Policy"}, "%s must be %q or %q, got %q", n("Policy"), PolicyStandard, PolicySession, c.Policy)
	case c.RequestTimeout <= 0:
		return fail([]string{"RequestTimeout"}, "%s must be positive, got %v", n("RequestTimeout"), c.RequestTimeout)
	case !slices.Contains(CuratorVersions, c.CuratorVersion):
		return fail([]string{"CuratorVersion"}, "%s must be one of %s, got %q", n("CuratorVersion"), strings.Join(CuratorVersions, ", "), c.CuratorVersion)
	case c.RejoinDelay < 0:
		return fail([]string{"RejoinDelay"}, "%s must not be negative, got %v", n("RejoinDelay"), c.RejoinDelay)
	case c.ConnectServers < 1:
		return fail([]string{"ConnectServers"}, "%s must be at least 1, got %d", n("ConnectServers"), c.ConnectServers)
	case c.Token != TokenNone && c.Token != TokenCzxid:
		return fail([]string{"Token"}, "%s must be %q or %q, got %q", n("Token"), TokenNone, TokenCzxid, c.Token)
	}
	return nil
}
