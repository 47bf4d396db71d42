package scenario

import "github.com/electsim/electsim/registry"

// Token is the fencing token the algorithm's leaders write with (its token
// parameter, registry.Token), and false when the algorithm's library hands
// the application one itself (a raft term, etcd's Election.Rev) or the
// algorithm is unknown.
func (a AlgorithmSpec) Token() (registry.Token, bool) {
	def := findAlgo(a.Name)
	if def == nil {
		return registry.Token{}, false
	}
	// The token parameter is an enum: the minimum end of every range is
	// the value every run takes.
	return def.TokenOf(a.draw(nil, -1))
}

// checkFencingToken refuses cron.policy [fencing] when the leaders write
// with no token: every write would carry token 0, and a fenced resource
// that compares tokens would reject nothing, so the run would report
// fencing that fences nothing.
func (l *loader) checkFencingToken(sc *Scenario) {
	if sc.Cron == nil || sc.Cron.Mode == "shedlock" || !sc.Cron.Config.Policy.Fencing || l.fencingAt == nil || !l.userCode(findAlgo(sc.Algorithm.Name)) {
		return
	}
	tok, ok := sc.Algorithm.Token()
	if !ok || tok.Source != registry.TokenNone {
		return
	}
	l.errAt(l.fencingAt, "cron.policy", "fencing needs a fencing token, but %s hands the leader none (algorithm.token: none, the default); add %s", sc.Algorithm.Name, tok.Add)
}
