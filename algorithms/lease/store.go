package lease

import (
	"cmp"
	"encoding/json"
	"slices"
	"time"

	"github.com/electsim/electsim/algorithms/internal/coord"
	"github.com/electsim/electsim/sim"
)

// The effects the store records for every change, so checkers can rebuild the
// lease history. Detail is the key; A is the holder (sim.None when free), B
// the fencing token and C the revision after the change.
const (
	EffectAcquired    = "lease.acquired"        // a holder took the lease (A holder, B token)
	EffectRenewed     = "lease.renewed"         // the holder renewed or extended it
	EffectReleased    = "lease.released"        // the holder gave it up
	EffectUpdated     = "lease.updated"         // a write that changed no holder (e.g. k8s update of a free record)
	EffectExpired     = "lease.expired"         // the store's clock expired a TTL key (A old holder, B its token)
	EffectIncr        = "lease.incr"            // a counter was incremented (Detail counter, B value)
	EffectReverted    = "lease.reverted"        // FailoverLoseLast undid a write (A, B, C: the restored record; A None if absent)
	EffectFailover    = "store.failover"        // FailoverLoseLast ran (A writes lost)
	EffectUnavailable = coord.EffectUnavailable // the store started ignoring requests
	EffectAvailable   = coord.EffectAvailable   // the store serves requests again
	// EffectKeepAliveStopped is recorded by a walltime holder (not the
	// store) when ShedLock's keep-alive stops extending (Detail why, A the
	// holder, B its token); its task, and its tenure, go on.
	EffectKeepAliveStopped = "shedlock.keepalive_stopped"
)

// StoreConfig configures the lease store. The zero value is the default.
type StoreConfig struct {
	// Persistence says when a write becomes durable, so what a crash and
	// restart loses. The zero value, PersistDurable, persists every write
	// before the reply is sent (the engine holds replies until the store's
	// fsync completes): etcd or a database. The Redis flavours' scenario
	// default is PersistRDB, Redis's shipped configuration.
	Persistence Persistence
	// SaveRules are the RDB save points (PersistRDB). nil: Redis's
	// defaults, DefaultSaveRules.
	SaveRules []SaveRule
	// WriteLogMax bounds the in-memory write log FailoverLoseLast reverts
	// from. Default 256 entries.
	WriteLogMax int
}

// DefaultWriteLogMax is StoreConfig.WriteLogMax's default.
const DefaultWriteLogMax = 256

// counter is a named INCR counter.
type counter struct {
	Key   string
	Value int64
}

// writeEntry is one applied write, with what it overwrote, so a failover can
// revert it.
type writeEntry struct {
	op            Op
	hasRec        bool
	key           string
	had           bool
	before        Record
	counterKey    string
	counterHad    bool
	counterBefore int64
	revBefore     int64
}

// snapshot is the store's durable state.
type snapshot struct {
	Rev      int64
	Records  []Record
	Counters []counter
}

// Store is the simulated lease store: a service node holding named records
// and counters, applying one request at a time (linearizable), with its own
// clocks (a TTL key's expiry is judged by the store clock its request named:
// the wall clock for Redis keys, Record.ExpiredAt). Add it with
// sim.Service(). Its exported methods may be called from sim.At callbacks to
// inject faults.
type Store struct {
	cfg         StoreConfig
	env         sim.Env
	records     []Record  // sorted by Key
	counters    []counter // sorted by Key
	rev         int64
	log         []writeEntry
	unavailable bool
	ignored     uint64
	expiry      coord.Timer
	dirty       int           // rdb: changes since the last snapshot (server.dirty)
	lastSave    time.Duration // rdb: the last snapshot; aof_everysec: the last fsync
	saveTimer   sim.TimerID
	saveArmed   bool
}

// NewStore returns a store node.
func NewStore(cfg StoreConfig) *Store {
	if cfg.WriteLogMax <= 0 {
		cfg.WriteLogMax = DefaultWriteLogMax
	}
	return &Store{cfg: cfg}
}

// Start implements sim.Node: it restores the durable records. Whether the
// store is unavailable is an injected condition, not process memory, so it
// survives a restart.
func (st *Store) Start(env sim.Env, restored []byte) {
	*st = Store{cfg: st.cfg, env: env, unavailable: st.unavailable, ignored: st.ignored, lastSave: env.Now()}
	if len(restored) > 0 && st.cfg.Persistence != PersistNone {
		var snap snapshot
		if err := json.Unmarshal(restored, &snap); err == nil {
			st.rev, st.records, st.counters = snap.Rev, snap.Records, snap.Counters
		}
	}
	st.rearmExpiry()
}

// OnMessage implements sim.Node: it applies a request and replies.
func (st *Store) OnMessage(m sim.Message) {
	req, ok := m.Body.(*Request)
	if !ok || req.Op == 0 || req.Op >= numOps || m.Kind != opKinds[req.Op] {
		return
	}
	if st.unavailable {
		st.ignored++
		return
	}
	rep := st.apply(req)
	rep.ID, rep.Op = req.ID, req.Op
	st.env.Send(sim.Message{Kind: KindReply, To: m.From, Index: req.ID, Flag: rep.OK, Term: rep.Rec.Revision, A: rep.Value, Body: rep})
}

// OnTimer implements sim.Node: the expiry timer or the save timer fired.
func (st *Store) OnTimer(id sim.TimerID, tag int) {
	if tag == storeTagSave {
		if st.saveArmed && id == st.saveTimer {
			st.saveDue()
		}
		return
	}
	st.expiry.Fired()
	st.expireDue()
	st.rearmExpiry()
}

// --- inspection and fault hooks ---

// Get returns the record stored under key.
func (st *Store) Get(key string) (Record, bool) {
	i, ok := st.find(key)
	if !ok {
		return Record{}, false
	}
	return st.records[i], true
}

// LeaseHolder returns who holds the record named key and its token, as the
// store judges it at its clock readings: nobody if the record is absent or
// free, its TTL has run out (Record.ExpiredAt; not yet swept), or a ShedLock
// row's lock_until has passed by the store's wall clock. It makes the store
// a faults.StoreService.
func (st *Store) LeaseHolder(key string, monoNs, wallNs int64) (sim.NodeID, int64, bool) {
	rec, ok := st.Get(key)
	switch {
	case !ok || rec.Holder == sim.None:
		return sim.None, 0, false
	case rec.ExpiredAt(monoNs, wallNs):
		return sim.None, 0, false
	case rec.LockUntilWallNs != 0 && rec.LockUntilWallNs <= wallNs:
		return sim.None, 0, false
	}
	return rec.Holder, rec.Token, true
}

// Records returns a copy of every record, sorted by key.
func (st *Store) Records() []Record { return slices.Clone(st.records) }

// Counter returns the value of an INCR counter (0 if never incremented).
func (st *Store) Counter(key string) int64 {
	if i, ok := st.findCounter(key); ok {
		return st.counters[i].Value
	}
	return 0
}

// Revision returns the store's current revision.
func (st *Store) Revision() int64 { return st.rev }

// WriteLogLen returns how many writes FailoverLoseLast could revert.
func (st *Store) WriteLogLen() int { return len(st.log) }

// Unavailable reports whether the store ignores requests.
func (st *Store) Unavailable() bool { return st.unavailable }

// Ignored returns how many requests were ignored while unavailable.
func (st *Store) Ignored() uint64 { return st.ignored }

// SetUnavailable makes the store ignore (drop without reply) every request
// while on, as an overloaded or failed-over service does; clients time out.
// TTLs keep running meanwhile.
func (st *Store) SetUnavailable(on bool) {
	if st.unavailable == on {
		return
	}
	st.unavailable = on
	if st.env != nil {
		coord.Availability(st.env, on)
	}
}

// FailoverLoseLast reverts the store's last n writes, newest first, as a
// failover to an asynchronously replicated standby that had not received
// them would. Records, counters and the store's revision go back to their
// values before those writes (so revisions can be reused: the ABA hazard of a
// lossy failover). Expiries are not writes: a restored TTL key whose expiry
// has passed expires at once. It returns how many writes were reverted (the
// log holds at most StoreConfig.WriteLogMax, and only writes since the store
// last started).
func (st *Store) FailoverLoseLast(n int) int {
	done := 0
	for ; done < n && len(st.log) > 0; done++ {
		w := st.log[len(st.log)-1]
		st.log = st.log[:len(st.log)-1]
		if w.hasRec {
			restored := Record{Key: w.key, Holder: sim.None}
			if w.had {
				restored = w.before
				st.putRaw(w.before)
			} else {
				st.deleteRaw(w.key)
			}
			st.effect(EffectReverted, w.key, restored.Holder, restored.Token, restored.Revision)
		}
		if w.counterKey != "" {
			st.setCounterRaw(w.counterKey, w.counterHad, w.counterBefore)
			if !w.hasRec {
				st.effect(EffectReverted, w.counterKey, sim.None, w.counterBefore, w.revBefore)
			}
		}
		st.rev = w.revBefore
	}
	if st.env != nil {
		st.env.Effect(sim.Effect{Name: EffectFailover, A: int64(done), B: st.rev})
		st.changed()
		st.expireDue()
		st.rearmExpiry()
	}
	return done
}

// --- operations ---

func (st *Store) now() int64 { return int64(st.env.Now()) }

// holds reports whether cur is held by the requester: the same holder and,
// when the request names one, the same identity (Redlock's random value:
// go-redsync's touch and delete scripts compare GET with it).
func holds(cur Record, req *Request) bool {
	return cur.Holder == req.Holder && (req.Identity == "" || cur.HolderIdentity == req.Identity)
}

// classify names a k8s-style write by how the holder changed.
func classify(had bool, before, after Record) string {
	switch {
	case after.HolderIdentity == "" && after.Holder == sim.None:
		if had && before.HolderIdentity != "" {
			return EffectReleased
		}
		return EffectUpdated
	case !had || before.Holder != after.Holder || before.HolderIdentity != after.HolderIdentity:
		return EffectAcquired
	default:
		return EffectRenewed
	}
}

// write applies one logged write: rec (nil = delete the key of before) and,
// if counterKey is set, an INCR of that counter whose value it returns (and
// stores as rec's Token). rec gets its Key's revision; a Token of -1 becomes
// the revision (ShedLock's acquiring revision).
func (st *Store) write(op Op, rec *Record, had bool, before Record, counterKey string) int64 {
	w := writeEntry{op: op, had: had, before: before, revBefore: st.rev}
	st.rev++
	var value int64
	if counterKey != "" {
		i, ok := st.findCounter(counterKey)
		w.counterKey, w.counterHad = counterKey, ok
		if ok {
			w.counterBefore = st.counters[i].Value
		}
		value = w.counterBefore + 1
		st.setCounterRaw(counterKey, true, value)
	}
	switch {
	case rec != nil:
		w.hasRec, w.key = true, rec.Key
		rec.Revision = st.rev
		if rec.Token == -1 {
			rec.Token = st.rev
		}
		if counterKey != "" {
			rec.Token = value
		}
		st.putRaw(*rec)
	case had:
		w.hasRec, w.key = true, before.Key
		st.deleteRaw(before.Key)
	}
	st.log = append(st.log, w)
	if len(st.log) > st.cfg.WriteLogMax {
		st.log = slices.Delete(st.log, 0, len(st.log)-st.cfg.WriteLogMax)
	}
	st.changed()
	if rec != nil && rec.hasTTL() || had && before.hasTTL() {
		st.rearmExpiry()
	}
	return value
}

func (st *Store) effect(name, key string, holder sim.NodeID, token, rev int64) {
	if st.env != nil {
		st.env.Effect(sim.Effect{Name: name, Detail: key, Key: key, A: int64(holder), B: token, C: rev, Fact: effectFacts[name]})
	}
}

// effectFacts are the typed facts of the store's effects that checkers act
// on (sim.Fact); the names above are for people and fault triggers.
var effectFacts = map[string]sim.Fact{
	EffectAcquired: sim.FactLeaseAcquired,
	EffectRenewed:  sim.FactLeaseRenewed,
	EffectReleased: sim.FactLeaseReleased,
	EffectExpired:  sim.FactLeaseExpired,
	EffectReverted: sim.FactLeaseReverted,
}

// persist writes the durable snapshot (Store.changed says when).
func (st *Store) persist() {
	if st.cfg.Persistence == PersistNone || st.env == nil {
		return
	}
	b, err := json.Marshal(snapshot{Rev: st.rev, Records: st.records, Counters: st.counters})
	if err != nil {
		panic(err) // plain structs of ints and strings always marshal
	}
	st.env.Persist(b)
}

// --- TTL expiry (by the store clock each key's request named) ---

// setExpiry sets rec's expiry TTL ahead of the store clock req names (PX:
// an absolute time, as Redis stores it), clearing any expiry by the other.
func (st *Store) setExpiry(rec *Record, req *Request) {
	rec.ExpiresAtStoreMonoNs, rec.ExpiresAtStoreWallNs = 0, 0
	if req.ExpiryClock == ExpiryMonotonic {
		rec.ExpiresAtStoreMonoNs = st.now() + int64(req.TTL)
		return
	}
	rec.ExpiresAtStoreWallNs = st.env.WallNanos() + int64(req.TTL)
}

// expireDue deletes every TTL key whose expiry the store's clocks have
// reached. Every request runs it first, as Redis's expireIfNeeded runs on
// every key lookup (lazy expiry): a key whose wall-clock expiry a clock step
// has passed is gone for the next command.
func (st *Store) expireDue() {
	now, wall := st.now(), st.env.WallNanos()
	changed := false
	for i := 0; i < len(st.records); {
		r := st.records[i]
		if !r.ExpiredAt(now, wall) {
			i++
			continue
		}
		st.records = slices.Delete(st.records, i, i+1)
		st.rev++
		changed = true
		st.effect(EffectExpired, r.Key, r.Holder, r.Token, st.rev)
	}
	if changed {
		st.changed()
	}
}

// rearmExpiry points the store's single expiry timer at the earliest TTL.
// Timers run on the monotonic clock, so a wall-clock expiry is reached after
// its remaining wall time only if the two clocks agree; when they do not
// (a step or a different rate) the timer fires early or late, expireDue
// checks again and rearms, and any request meanwhile expires the key first.
func (st *Store) rearmExpiry() {
	now, wall := st.now(), st.env.WallNanos()
	var e coord.Earliest // monotonic deadlines: a wall expiry its remaining wall time from now
	for i := range st.records {
		r := &st.records[i]
		if r.ExpiresAtStoreMonoNs != 0 {
			e.Consider(r.ExpiresAtStoreMonoNs)
		}
		if r.ExpiresAtStoreWallNs != 0 {
			e.Consider(now + r.ExpiresAtStoreWallNs - wall)
		}
	}
	st.expiry.Point(st.env, e)
}

// --- sorted-slice helpers ---

func (st *Store) find(key string) (int, bool) {
	return slices.BinarySearchFunc(st.records, key, func(r Record, k string) int { return cmp.Compare(r.Key, k) })
}

func (st *Store) findCounter(key string) (int, bool) {
	return slices.BinarySearchFunc(st.counters, key, func(c counter, k string) int { return cmp.Compare(c.Key, k) })
}

func (st *Store) putRaw(r Record) {
	i, ok := st.find(r.Key)
	if ok {
		st.records[i] = r
		return
	}
	st.records = slices.Insert(st.records, i, r)
}

func (st *Store) deleteRaw(key string) {
	if i, ok := st.find(key); ok {
		st.records = slices.Delete(st.records, i, i+1)
	}
}

func (st *Store) setCounterRaw(key string, present bool, v int64) {
	i, ok := st.findCounter(key)
	switch {
	case !present && ok:
		st.counters = slices.Delete(st.counters, i, i+1)
	case present && ok:
		st.counters[i].Value = v
	case present:
		st.counters = slices.Insert(st.counters, i, counter{Key: key, Value: v})
	}
}

// storeTime rewrites a ShedLock request to use the store's wall clock, as
// ShedLock's usingDbTime() makes the database evaluate CURRENT_TIMESTAMP.
// It rewrites a copy: the client's request is shared with any duplicate.
func storeTime(req *Request, nowWallNs int64, cur Record) {
	req.NowWallNs = nowWallNs
	switch req.Op {
	case OpLock, OpExtend:
		req.UntilWallNs = nowWallNs + int64(req.AtMostFor)
	case OpUnlock:
		req.UntilWallNs = max(nowWallNs, cur.LockedAtWallNs+int64(req.AtLeastFor))
	}
}
