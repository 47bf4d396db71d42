package scenario

import (
	"strings"
	"time"

	"github.com/electsim/electsim/cron"
)

// readCron reads the cron section: the mode, the jobs, the write policy,
// the layer's options and the mode's own section, then (if the file had
// no error so far) validates the whole as the cron layer will.
func (l *loader) readCron(n *ynode, sc *Scenario) *CronSpec {
	m := l.mapOf(n, "cron")
	cs := &CronSpec{Mode: "leader"}
	m.oneOf("mode", &cs.Mode, "leader", "shedlock", "queue", "celery", "kubernetes")
	c := &cs.Config
	items := m.list("jobs")
	if len(items) == 0 && m.ok && !m.misspelt("jobs") {
		l.errAt(n, "cron.jobs", "missing: at least one job, e.g. {name: daily-report, schedule: \"0 2 * * *\", duration: 2s}")
	}
	for i := range items {
		l.readCronJob(items, i, cs)
	}
	l.readCronPolicy(m, c)
	l.readCronOptions(m, c)
	if sn := l.modeSection(m, cs, "shedlock", ""); sn != nil {
		l.readShedLock(sn, c)
	}
	l.readQueue(m, cs)
	l.readCelery(m, cs)
	l.readKube(m, cs)
	m.finish()
	c.NotBefore = sc.Start
	if len(l.errs) == 0 {
		check := *c
		if err := check.Validate(); err != nil {
			l.errAt(n, "cron", "%v", err)
		}
	}
	return cs
}

// readCronJob reads cron.jobs[i] and appends it to the jobs: a name used
// once, a schedule that parses (whose node is kept, by job, for later
// messages about it), a duration, writes and requests_recovery.
func (l *loader) readCronJob(items []*ynode, i int, cs *CronSpec) {
	c := &cs.Config
	it := items[i]
	path := index("cron.jobs", i)
	jm := l.mapOf(it, path)
	var j cron.Job
	if !jm.str("name", &j.Name) && !jm.has("name") && jm.ok && !jm.misspelt("name") {
		l.errAt(it, join(path, "name"), "missing: every job needs a name")
	}
	sn, s, ok := jm.scalar("schedule")
	switch {
	case ok:
		if _, err := cron.ParseSchedule(s); err != nil {
			msg := strings.TrimPrefix(err.Error(), "schedule ")
			l.errAt(sn, join(path, "schedule"), "%s%s", msg, suggestDescriptor(s))
		} else {
			j.Schedule = s
			for len(cs.scheduleAt) < len(c.Jobs) {
				cs.scheduleAt = append(cs.scheduleAt, nil)
			}
			cs.scheduleAt = append(cs.scheduleAt, sn)
		}
	case !jm.has("schedule") && jm.ok && !jm.misspelt("schedule"):
		l.errAt(it, join(path, "schedule"), "missing: a cron expression (\"0 2 * * *\") or \"@every 10s\"")
	}
	jm.durRange("duration", &j.RunMin, &j.RunMax, false)
	jm.integer("writes", &j.Writes, 1, 1000)
	jm.boolean("requests_recovery", &j.RequestsRecovery)
	jm.finish()
	if j.Name != "" {
		for pi, prev := range c.Jobs {
			if prev.Name == j.Name {
				l.errAt(jm.get("name"), join(path, "name"), "job %q is defined twice (first as cron.jobs[%d], line %d)", j.Name, pi, items[pi].line)
				break
			}
		}
	}
	c.Jobs = append(c.Jobs, j)
}

// readCronPolicy reads policy: the write rules the resource enforces
// (none alone), remembering where fencing was asked for.
func (l *loader) readCronPolicy(m *mapReader, c *cron.Config) {
	names, nodes := m.strList("policy")
	for i, name := range names {
		p, err := cron.ParsePolicy([]string{name})
		if err != nil {
			l.errAt(nodes[i], index("cron.policy", i), "%q is not a policy (fencing, idempotency, claim, none)%s", name, suggest(name, []string{"fencing", "idempotency", "claim", "none"}))
			continue
		}
		if name == "fencing" {
			l.fencingAt = nodes[i]
		}
		if name == "none" && len(names) > 1 {
			l.errAt(nodes[i], index("cron.policy", i), "none cannot be combined with other rules")
		}
		c.Policy.Fencing = c.Policy.Fencing || p.Fencing
		c.Policy.Idempotency = c.Policy.Idempotency || p.Idempotency
		c.Policy.Claim = c.Policy.Claim || p.Claim
	}
	m.oneOf("fencing_scope", &c.Policy.FencingScope, "job", "global")
}

// readCronOptions reads the options of every mode: misfire handling,
// the poll interval and the resource writes' timeout and retries. A
// timer under a millisecond would only flood the run with events.
func (l *loader) readCronOptions(m *mapReader, c *cron.Config) {
	if mn := m.get("misfire"); mn != nil {
		mm := l.mapOf(mn, "cron.misfire")
		mm.oneOf("policy", &c.Misfire.Policy, cron.MisfireFireNow, cron.MisfireQuartz, cron.MisfireSkip)
		mm.dur("threshold", &c.Misfire.Threshold)
		mm.dur("lookback", &c.Misfire.Lookback)
		mm.finish()
	}
	if m.dur("poll_interval", &c.PollInterval) && c.PollInterval < time.Millisecond {
		l.errAt(m.get("poll_interval"), "cron.poll_interval", "must be at least 1ms, got %s", fmtDur(c.PollInterval))
	}
	if m.dur("write_timeout", &c.WriteTimeout) && c.WriteTimeout < time.Millisecond {
		l.errAt(m.get("write_timeout"), "cron.write_timeout", "must be at least 1ms, got %s", fmtDur(c.WriteTimeout))
	}
	m.integer("write_retries", &c.WriteRetries, 0, 100)
}

// readShedLock reads cron.shedlock: lockAtMostFor, lockAtLeastFor (at
// most lockAtMostFor, whose default is cron.ShedLockConfig's) and whose
// clock lock_until is read by.
func (l *loader) readShedLock(sn *ynode, c *cron.Config) {
	sm := l.mapOf(sn, "cron.shedlock")
	okMost := sm.dur("lock_at_most_for", &c.ShedLock.LockAtMostFor)
	if sm.dur("lock_at_least_for", &c.ShedLock.LockAtLeastFor) {
		most := c.ShedLock.LockAtMostFor
		if !okMost {
			most = 10 * time.Minute // cron.ShedLockConfig's default
		}
		if c.ShedLock.LockAtLeastFor > most {
			l.errAt(sm.get("lock_at_least_for"), "cron.shedlock.lock_at_least_for", "%s exceeds lock_at_most_for (%s)", fmtDur(c.ShedLock.LockAtLeastFor), fmtDur(most))
		}
	}
	sm.oneOf("time", &c.ShedLock.Time, cron.ShedLockAppTime, cron.ShedLockStoreTime)
	sm.finish()
}
