package cron

// ForgetFencingOnRestart plants a resource bug in r: it keeps the highest
// accepted token per fencing scope in memory only, so a restart forgets
// it and the next write, however old its token, sets it afresh. The
// fencing argument (Kleppmann, "How to do distributed locking", 2016;
// DDIA §8 "Fencing tokens") needs the storage to remember the highest
// token it has seen durably, which the real resource does (its state
// survives its own crash). It is a test hook for internal/bugzoo only: no
// scenario key reaches it, and while it is off a restart pays one boolean
// test.
func (r *Resource) ForgetFencingOnRestart() { r.zooAmnesia = true }

// zooForget drops the fencing table (ForgetFencingOnRestart).
func (r *Resource) zooForget() { clear(r.highest) }
