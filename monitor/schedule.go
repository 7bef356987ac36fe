// Package monitor is the monitors use case (issue 24): an account's
// scheduled readings of a list of targets, the comparison of each reading
// with the previous successful one into change events, and the citation
// visibility those readings add up to. This file and its siblings hold the
// rules (schedules, targets, limits, diffing, visibility); service.go
// wires them to storage and the queue.
package monitor

import (
	"fmt"
	"math/bits"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
)

// Schedule kinds.
const (
	Hourly = "hourly"
	Daily  = "daily"
	Weekly = "weekly"
	Cron   = "cron"
)

// Schedule is when a monitor runs, in UTC: every hour at Minute, every day
// at Time ("HH:MM"), every week on Day at Time, or a cron expression (five
// fields or a descriptor such as @daily) that fires at most once an hour.
type Schedule struct {
	Type   string `json:"type"`
	Minute *int   `json:"minute,omitempty"` // hourly: 0-59, default 0
	Time   string `json:"time,omitempty"`   // daily, weekly: "HH:MM" UTC
	Day    string `json:"day,omitempty"`    // weekly: monday ... sunday
	Cron   string `json:"cron,omitempty"`   // cron
}

// days are the week days a weekly schedule accepts, in cron's numbering.
var days = map[string]int{"sunday": 0, "monday": 1, "tuesday": 2, "wednesday": 3, "thursday": 4, "friday": 5, "saturday": 6}

var clock = regexp.MustCompile(`^([01][0-9]|2[0-3]):([0-5][0-9])$`)

// Spec returns the schedule as a cron spec in UTC (what asynq's scheduler
// takes), or a FieldError naming what is wrong: an unknown type, a
// missing or malformed time or day, a cron expression that does not parse,
// carries a time zone or fires more often than once an hour.
func (s Schedule) Spec() (string, error) {
	switch s.Type {
	case Hourly:
		m := 0
		if s.Minute != nil {
			m = *s.Minute
		}
		if m < 0 || m > 59 {
			return "", fieldErr("schedule.minute", "must be from 0 to 59")
		}
		return fmt.Sprintf("%d * * * *", m), nil
	case Daily, Weekly:
		c := clock.FindStringSubmatch(s.Time)
		if c == nil {
			return "", fieldErr("schedule.time", "must be HH:MM (UTC), e.g. 06:30")
		}
		h, _ := strconv.Atoi(c[1])
		m, _ := strconv.Atoi(c[2])
		if s.Type == Daily {
			return fmt.Sprintf("%d %d * * *", m, h), nil
		}
		d, ok := days[strings.ToLower(s.Day)]
		if !ok {
			return "", fieldErr("schedule.day", "must be a day of the week, e.g. monday")
		}
		return fmt.Sprintf("%d %d * * %d", m, h, d), nil
	case Cron:
		if err := checkCron(s.Cron); err != nil {
			return "", err
		}
		return strings.TrimSpace(s.Cron), nil
	}
	return "", fieldErr("schedule.type", "must be one of hourly, daily, weekly, cron")
}

// checkCron accepts a standard cron expression that fires at most once
// an hour: exactly one minute of the hour, no time zone, no @every.
func checkCron(expr string) error {
	expr = strings.TrimSpace(expr)
	if expr == "" || strings.Contains(expr, "TZ=") {
		return fieldErr("schedule.cron", "must be a cron expression in UTC (five fields, no time zone)")
	}
	sched, err := cron.ParseStandard(expr)
	if err != nil {
		return fieldErr("schedule.cron", "does not parse: "+err.Error())
	}
	spec, ok := sched.(*cron.SpecSchedule)
	if !ok || bits.OnesCount64(spec.Minute&^starBit) != 1 {
		return fieldErr("schedule.cron", "must fire at most once an hour (a single minute of the hour)")
	}
	return nil
}

// starBit is robfig/cron's mark of a field given as "*".
const starBit = 1 << 63

// parse returns the schedule of a spec made by Spec.
func parse(spec string) (cron.Schedule, error) {
	return cron.ParseStandard(spec)
}

// RunsPerDay is the most runs spec makes on any one UTC day within the
// year after from (a weekly schedule: 1; hourly: 24).
func RunsPerDay(spec string, from time.Time) (int, error) {
	sched, err := parse(spec)
	if err != nil {
		return 0, err
	}
	most, day, n := 0, "", 0
	end := from.AddDate(1, 0, 0)
	for t := sched.Next(from.UTC()); !t.IsZero() && t.Before(end); t = sched.Next(t) {
		if d := t.Format(time.DateOnly); d != day {
			day, n = d, 0
		}
		n++
		most = max(most, n)
	}
	return most, nil
}

// slotSlack allows for a worker's clock a little behind the scheduler's.
const slotSlack = 30 * time.Second

// Slot is the scheduled time of the run that spec started at or before
// now (give or take slotSlack): the last firing within the hour before
// now, or now to the minute when there is none (a late run). Two
// schedulers that enqueued the same firing get the same slot, which the
// database keeps unique per monitor.
func Slot(spec string, now time.Time) time.Time {
	fallback := now.UTC().Truncate(time.Minute)
	now = now.UTC().Add(slotSlack)
	sched, err := parse(spec)
	if err != nil {
		return fallback
	}
	slot := time.Time{}
	for t := sched.Next(now.Add(-time.Hour)); !t.IsZero() && !t.After(now); t = sched.Next(t) {
		slot = t
	}
	if slot.IsZero() {
		return fallback
	}
	return slot
}
