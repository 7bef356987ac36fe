package monitor

import "fmt"

// Limits bound what one account's monitors may cost. A zero field is no
// limit. Defaults are DefaultLimits; KISA_MONITOR_MAX_* set them.
type Limits struct {
	Monitors     int // monitors of the account, paused ones included
	Targets      int // targets over all its monitors, paused ones included
	VisitsPerDay int // readings a day its active monitors' schedules plan (and runs make)
}

// DefaultLimits are the limits when none are configured: enough for a
// team tracking a few markets daily (a daily monitor of 1,000 targets is
// 1,000 visits a day), and an hourly one of 100 targets.
var DefaultLimits = Limits{Monitors: 20, Targets: 2000, VisitsPerDay: 5000}

// Plan is what one monitor costs: its targets and the most runs its
// schedule makes on a day (0 when paused: it plans no visits).
type Plan struct {
	Targets int
	// Readings is how many readings a run makes: the targets' samples
	// summed (0: one per target).
	Readings   int
	RunsPerDay int
}

// Visits is the most readings the plan makes on a day.
func (p Plan) Visits() int { return max(p.Readings, p.Targets) * p.RunsPerDay }

// Check returns an *InvalidError when the account's other monitors
// (others) with this one (p) exceed l.
func (l Limits) Check(others []Plan, p Plan) error {
	monitors, targets, visits := 1, p.Targets, p.Visits()
	for _, o := range others {
		monitors++
		targets += o.Targets
		visits += o.Visits()
	}
	probs := problems{}
	if l.Monitors > 0 && monitors > l.Monitors {
		probs.add("monitors", fmt.Sprintf("this account may have at most %d monitors", l.Monitors))
	}
	if l.Targets > 0 && targets > l.Targets {
		probs.add("targets", fmt.Sprintf("this account's monitors may hold at most %d targets in all; this would make %d", l.Targets, targets))
	}
	if l.VisitsPerDay > 0 && visits > l.VisitsPerDay {
		probs.add("schedule", fmt.Sprintf("this account's monitors may read at most %d targets a day; this schedule would make %d", l.VisitsPerDay, visits))
	}
	return probs.err()
}

// SkipVisits is the reason recorded on a run skipped because it would
// take the account past Limits.VisitsPerDay.
const SkipVisits = "visits_per_day"

// RunFits reports whether a run of targets readings fits the day's
// budget after done readings today.
func (l Limits) RunFits(done, targets int) bool {
	return l.VisitsPerDay == 0 || done+targets <= l.VisitsPerDay
}
