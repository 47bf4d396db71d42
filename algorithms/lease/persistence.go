package lease

import (
	"time"
)

// Persistence says when the lease store makes a write durable, so what a
// crash and restart of the store loses. The Redis modes follow Redis 7.4.1
// (redis.conf and src/aof.c flushAppendOnlyFile, src/server.c serverCron);
// a restart in the simulator is a machine crash (kill -9 with the page cache
// lost, or a power cut), the pessimistic reading: data Redis had written
// but not fsynced is gone.
type Persistence string

// The persistence modes.
const (
	// PersistDurable, the StoreConfig zero value, makes every write durable
	// before its reply is sent: a consensus-backed store (etcd behind a
	// Kubernetes Lease) or a database (ShedLock's table). Not a Redis mode.
	PersistDurable Persistence = ""
	// PersistNone keeps everything in memory: a restart loses every key
	// (Redis with `save ""` and `appendonly no`).
	PersistNone Persistence = "none"
	// PersistRDB makes the data durable only when a snapshot is taken by
	// the save rules (StoreConfig.SaveRules, default Redis's `save 3600 1
	// 300 100 60 10000`): a restart restores the last snapshot, so a lock
	// key set seconds before is lost. Redis's shipped default
	// (`appendonly no`).
	PersistRDB Persistence = "rdb"
	// PersistAOFEverySec appends every write to the AOF and fsyncs it once
	// a second in the background (`appendonly yes`, `appendfsync
	// everysec`): a restart loses the writes since the last fsync, up to
	// about a second (two when the disk is slow: flushAppendOnlyFile
	// postpones a write for up to 2 s while a background fsync is running;
	// not modelled).
	PersistAOFEverySec Persistence = "aof_everysec"
	// PersistAOFAlways fsyncs the AOF before replying (`appendfsync
	// always`): a restart loses nothing acknowledged.
	PersistAOFAlways Persistence = "aof_always"
)

// Persistences lists the Redis modes a scenario can name.
var Persistences = []Persistence{PersistNone, PersistRDB, PersistAOFEverySec, PersistAOFAlways}

// SaveRule is one Redis `save <seconds> <changes>` point: a snapshot is
// taken once more than Seconds have passed since the last one and at least
// Changes writes were made meanwhile (serverCron).
type SaveRule struct {
	Seconds time.Duration
	Changes int
}

// DefaultSaveRules are Redis's default save points (`save 3600 1 300 100 60
// 10000`; initServerConfig's appendServerSaveParams in src/server.c, 7.4.1).
var DefaultSaveRules = []SaveRule{{time.Hour, 1}, {5 * time.Minute, 100}, {time.Minute, 10000}}

// aofFsyncInterval is appendfsync everysec's interval: flushAppendOnlyFile
// starts a background fsync once server.mstime - aof_last_fsync >= 1000.
const aofFsyncInterval = time.Second

// storeTagSave tags the store's timer that takes an RDB snapshot or an
// everysec fsync (tag 0 is the expiry timer).
const storeTagSave = 1

// valid reports whether p is a mode Persistence names.
func (p Persistence) valid() bool {
	switch p {
	case PersistDurable, PersistNone, PersistRDB, PersistAOFEverySec, PersistAOFAlways:
		return true
	}
	return false
}

// changed records one change to the data (a write, an expiry, a revert) and
// makes it durable as the persistence mode says: at once (durable,
// aof_always), at the next fsync (aof_everysec), at the next snapshot the
// save rules allow (rdb) or never (none).
func (st *Store) changed() {
	if st.env == nil {
		return
	}
	switch st.cfg.Persistence {
	case PersistDurable, PersistAOFAlways:
		st.persist()
	case PersistAOFEverySec:
		if st.saveArmed {
			return // the pending fsync will cover this write
		}
		if wait := st.lastSave + aofFsyncInterval - st.env.Now(); wait > 0 {
			st.armSave(wait)
			return
		}
		st.persist()
		st.lastSave = st.env.Now()
	case PersistRDB:
		st.dirty++
		st.armSnapshot()
	}
}

// armSnapshot points the save timer at the earliest moment a save rule is
// met with the changes made so far.
func (st *Store) armSnapshot() {
	if st.saveArmed {
		st.env.CancelTimer(st.saveTimer)
		st.saveArmed = false
	}
	best := time.Duration(-1)
	for _, r := range st.saveRules() {
		if st.dirty < r.Changes {
			continue
		}
		// "server.unixtime-server.lastsave > sp->seconds": strictly more.
		at := st.lastSave + r.Seconds + time.Nanosecond
		if best < 0 || at < best {
			best = at
		}
	}
	if best >= 0 {
		st.armSave(max(best-st.env.Now(), 0))
	}
}

func (st *Store) saveRules() []SaveRule {
	if st.cfg.SaveRules != nil {
		return st.cfg.SaveRules
	}
	return DefaultSaveRules
}

func (st *Store) armSave(d time.Duration) {
	st.saveTimer, st.saveArmed = st.env.SetTimer(d, storeTagSave), true
}

// saveDue takes the snapshot or fsync the save timer was armed for.
func (st *Store) saveDue() {
	st.saveArmed = false
	st.persist()
	st.lastSave, st.dirty = st.env.Now(), 0
}
