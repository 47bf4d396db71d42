package scenario

// jobsRunOn names who runs the jobs in each cron mode, for errors.
var jobsRunOn = map[string]string{"leader": "elected leader", "shedlock": "lock holder",
	"queue": "queue's workers", "kubernetes": "kubelets", "celery": "Celery workers"}

// modeSection returns the cron section's subsection named mode (nil when
// it is absent or refused): required under cron.mode mode when example
// (its shortest form, for the error) is set, refused under any other mode.
func (l *loader) modeSection(m *mapReader, cs *CronSpec, mode, example string) *ynode {
	n := m.get(mode)
	switch {
	case n == nil && cs.Mode == mode && example != "":
		l.errAt(m.n, "cron."+mode, "missing: mode %s needs a %s section, e.g. %s", mode, mode, example)
		return nil
	case n != nil && cs.Mode != mode:
		l.errAt(m.keyNode(mode), "cron."+mode, "only used with mode: %s (this cron section runs jobs on the %s)", mode, jobsRunOn[cs.Mode])
		return nil
	}
	return n
}
