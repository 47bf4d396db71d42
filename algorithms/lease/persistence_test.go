package lease

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// keyAfterRestart sets a lock key (24h TTL) on a store with cfg, runs wait,
// crashes and restarts the store, and reports whether the key survived.
func keyAfterRestart(t *testing.T, cfg StoreConfig, wait time.Duration) bool {
	t.Helper()
	r := newStoreRig(cfg)
	r.s.RunFor(time.Millisecond)
	require.True(t, r.do(r.a, Request{Op: OpSetNX, Holder: r.ia, Identity: "v", TTL: 24 * time.Hour}).OK)
	r.s.RunFor(wait)
	r.s.Crash(r.store)
	r.s.Restart(r.store, true)
	r.s.RunFor(time.Millisecond)
	_, ok := r.st.Get("k")
	return ok
}

// TestStorePersistenceRDBDefaultLosesRecentKey: Redis's shipped
// configuration (redis.conf of 7.4.1: `appendonly no`, save points `3600 1
// 300 100 60 10000` from initServerConfig in src/server.c) snapshots at the
// earliest an hour after the last save for a single change, so a lock key
// set 5 s before a crash is gone after the restart (Kleppmann's "a master
// restarts without the key"). A save rule that is met keeps it. The old
// store was durable on every write and kept the key: this fails there.
func TestStorePersistenceRDBDefaultLosesRecentKey(t *testing.T) {
	assert.False(t, keyAfterRestart(t, StoreConfig{Persistence: PersistRDB}, 5*time.Second), "default save rules: no snapshot yet")
	assert.False(t, keyAfterRestart(t, StoreConfig{Persistence: PersistRDB}, 59*time.Minute), "one change waits more than 3600 s")
	assert.True(t, keyAfterRestart(t, StoreConfig{Persistence: PersistRDB}, 61*time.Minute), "save 3600 1 met")
	rules := []SaveRule{{Seconds: time.Second, Changes: 1}}
	assert.True(t, keyAfterRestart(t, StoreConfig{Persistence: PersistRDB, SaveRules: rules}, 2*time.Second), "save 1 1 met")
	assert.False(t, keyAfterRestart(t, StoreConfig{Persistence: PersistRDB, SaveRules: rules}, 500*time.Millisecond), "save 1 1 not yet")
}

// TestStorePersistenceAOFEverySecWindow: with appendfsync everysec,
// flushAppendOnlyFile (src/aof.c, 7.4.1) fsyncs in the background once
// mstime - aof_last_fsync >= 1000, so a crash loses the writes of the last
// second and keeps the older ones.
func TestStorePersistenceAOFEverySecWindow(t *testing.T) {
	assert.False(t, keyAfterRestart(t, StoreConfig{Persistence: PersistAOFEverySec}, 500*time.Millisecond), "not fsynced yet")
	assert.True(t, keyAfterRestart(t, StoreConfig{Persistence: PersistAOFEverySec}, 1500*time.Millisecond), "fsynced at the next second")
}

// TestStorePersistenceRestoredKeyExpires: a restored key whose TTL ran out
// while the store was down is expired on load, as rdbLoad skips expired keys
// on a master.
func TestStorePersistenceRestoredKeyExpires(t *testing.T) {
	r := newStoreRig(StoreConfig{Persistence: PersistAOFAlways})
	r.s.RunFor(time.Millisecond)
	require.True(t, r.do(r.a, Request{Op: OpSetNX, Holder: r.ia, Identity: "v", TTL: time.Second}).OK)
	r.s.Crash(r.store)
	r.s.RunFor(2 * time.Second)
	r.s.Restart(r.store, true)
	r.s.RunFor(time.Millisecond)
	assert.True(t, r.do(r.b, Request{Op: OpSetNX, Holder: r.ib, Identity: "w", TTL: time.Second}).OK)
}
