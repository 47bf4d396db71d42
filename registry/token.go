package registry

// Token says where the fencing token a leader writes with comes from, for
// one run's values (Algorithm.Token). A library that hands its application
// a token (etcd's Election.Rev, a raft term) needs no Token function; one
// that hands none (Curator's LeaderLatch, Consul's api.Lock, go-redsync,
// client-go's leader elector) has a token parameter whose default is
// TokenNone, and any other value is a read the application adds.
type Token struct {
	// Source is the token parameter's value: TokenNone, or what the
	// application reads ("czxid", "lock_index", …).
	Source string
	// AppRead: the library hands the application no token; it reads this
	// one itself (an application addition, with its own round trip unless
	// Cost says otherwise).
	AppRead bool
	// Cost says, for people, what obtaining it costs the application
	// ("one exists() round trip to the ensemble before the leader acts").
	Cost string
	// Add is, when Source is TokenNone, the setting that gives the leader a
	// token and what it costs, for the error that refuses fencing without
	// one ("algorithm.token: czxid (an application addition: …)").
	Add string
}

// TokenNone is the token parameter's value for "the leader writes with no
// token" (token 0 on every write).
const TokenNone = "none"

// TokenOf is the token a's leaders write with for values v, and false when
// a hands its application a token itself (no Token function).
func (a *Algorithm) TokenOf(v Values) (Token, bool) {
	if a.Token == nil {
		return Token{}, false
	}
	return a.Token(v), true
}
