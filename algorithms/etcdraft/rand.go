package etcdraft

import (
	crand "crypto/rand"
	"io"
	"sync"

	"github.com/electsim/electsim/sim"
)

// Why this file holds the only mutex under algorithms/ (a documented exception
// to the no-mutex rule):
//
// go.etcd.io/raft/v3 v3.7.0 draws every randomized election timeout from a
// process-global source: raft.go resetRandomizedElectionTimeout calls
// globalRand.Intn(electionTimeout), which is
//
//	rand.Int(rand.Reader, big.NewInt(n))   // crypto/rand
//
// reading the package variable crypto/rand.Reader at call time. crypto/rand.Int
// (Go 1.26 src/crypto/rand/util.go) reads only from the io.Reader it is given
// (io.ReadFull, no fips/boring/MaybeReadByte indirection — that applies to
// crypto/rand.Read and key generation, not to Int), and no other library code
// consumes randomness. The library offers no hook to inject a source.
//
// So around every library call (NewRawNode, Tick, Step, Ready, Advance) the
// adapter holds libMu and points crypto/rand.Reader at a reader backed by the
// calling node's own sim stream (Env.Rand), restoring the original afterwards.
// Every byte the library consumes during the call therefore comes from that
// node's stream, in an order fixed by the node's own event sequence, and the
// mutex keeps Sims running in other goroutines (simrun's workers, parallel
// tests) from observing or consuming each other's reader. Outside those calls
// crypto/rand.Reader is the system reader again. Caveat: code in the same
// process that reads crypto/rand.Reader directly while an etcdraft node is
// inside a call would race with the swap; electsim has no such code.
var (
	libMu       sync.Mutex
	savedReader io.Reader
)

// streamReader serves crypto/rand reads from a node's deterministic stream:
// each Read draws whole 64-bit values and hands out their bytes
// little-endian first, discarding the unused rest.
type streamReader struct {
	r     *sim.Rand
	bytes uint64 // bytes served, for tests and diagnostics
}

// Read implements io.Reader; it never fails.
func (s *streamReader) Read(p []byte) (int, error) {
	for i := 0; i < len(p); {
		v := s.r.Uint64()
		for j := 0; j < 8 && i < len(p); j++ {
			p[i] = byte(v)
			v >>= 8
			i++
		}
	}
	s.bytes += uint64(len(p))
	return len(p), nil
}

// enter starts a library call on behalf of n: it takes libMu and routes the
// library's randomness to n's stream. Pair every enter with a deferred exit.
func (n *Node) enter() {
	libMu.Lock()
	savedReader = crand.Reader
	crand.Reader = &n.rr
}

// exit restores the process's crypto/rand.Reader and releases libMu.
func (n *Node) exit() {
	crand.Reader = savedReader
	savedReader = nil
	libMu.Unlock()
}
