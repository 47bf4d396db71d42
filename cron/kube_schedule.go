package cron

import (
	"fmt"
	"time"
)

// MissedSchedules says how many scheduled times passed since a CronJob's
// earliest time (mostRecentScheduleTime's missedSchedulesType).
type MissedSchedules int

// The counts mostRecentScheduleTime tells apart.
const (
	NoneMissed MissedSchedules = iota
	FewMissed
	ManyMissed // more than 100: the TooManyMissedTimes warning
)

// kubeNextScheduleDelta is the padding the controller adds when it requeues
// a CronJob for its next scheduled time (nextScheduleDelta, 100ms).
const kubeNextScheduleDelta = 100 * time.Millisecond

// MostRecentScheduleTime reproduces kubernetes
// pkg/controller/cronjob/utils.go mostRecentScheduleTime (v1.28–v1.31
// shape): from earliest (status.lastScheduleTime, else the CronJob's
// creation time; raised to now−startingDeadlineSeconds when set), the most
// recent scheduled time at or before now (nil if none) and whether none,
// a few or more than 100 were missed. The count is the source's rough
// approximation: (now − t1) / (t2 − t1) + 1, with t1, t2 the first two
// times after earliest.
func MostRecentScheduleTime(sched Schedule, earliest, now time.Time, startingDeadline time.Duration) (*time.Time, MissedSchedules, error) {
	if startingDeadline > 0 {
		if d := now.Add(-startingDeadline); d.After(earliest) {
			earliest = d
		}
	}
	t1 := sched.Next(earliest)
	if t1.IsZero() {
		return nil, NoneMissed, nil
	}
	t2 := sched.Next(t1)
	if now.Before(t1) {
		return nil, NoneMissed, nil
	}
	if t2.IsZero() || now.Before(t2) {
		return &t1, NoneMissed, nil
	}
	between := int64(t2.Sub(t1).Round(time.Second).Seconds())
	if between < 1 {
		return nil, NoneMissed, fmt.Errorf("time difference between two schedules is less than 1 second")
	}
	elapsed := int64(now.Sub(t1).Seconds())
	n := elapsed/between + 1
	var recent time.Time
	potential := t1.Add(time.Duration((n-1-1)*between) * time.Second)
	for t := sched.Next(potential); !t.IsZero() && !t.After(now); t = sched.Next(t) {
		recent = t
	}
	missed := FewMissed
	if n > 100 {
		missed = ManyMissed
	}
	if recent.IsZero() {
		return nil, missed, nil
	}
	return &recent, missed, nil
}

// kubeJobName is getJobName: the CronJob's name and the scheduled time in
// minutes since the epoch (getTimeHashInMinutes), so every controller
// names one scheduled time's Job alike — and two scheduled times within
// one minute alike too.
func kubeJobName(cronJob string, slot int64) string {
	return fmt.Sprintf("%s-%d", cronJob, time.Unix(0, slot).Unix()/60)
}
