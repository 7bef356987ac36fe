package main

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// slowDelay is how long the slow fixture's overview streams: about a live
// answer's pace (the fast fixture streams for 1 s).
const slowDelay = "8s"

// slowTabCounts are the 8 s throughput figure's points: a visit that
// mostly waits leaves the cores free, so more tabs than the 1 s figure's.
var slowTabCounts = []int{8, 16, 32}

// slowFixtureURL starts, once, a fixture whose overview streams for
// slowDelay, and returns its base URL.
func (s *suite) slowFixtureURL() (string, error) {
	if s.slowFixture != "" {
		return s.slowFixture, nil
	}
	u, err := s.startHTTP("serpfixture", nil, "/healthz", "--delay", slowDelay)
	if err != nil {
		return "", err
	}
	s.slowFixture = u
	return u, nil
}

// waitRun is what one worker did on one fixture: jobs, visits per second,
// CPU per visit of its process tree, peak PSS and answers not read whole.
type waitRun struct {
	Tabs        int     `json:"tabs"`
	Jobs        int     `json:"jobs"`
	JobsPerS    float64 `json:"jobs_per_s"`
	CPUPerVisit float64 `json:"cpu_s_per_visit"`
	PeakPSSMB   float64 `json:"peak_pss_mb"`
	Incomplete  int     `json:"incomplete"`
	// CPUByKind splits CPUPerVisit by process (procKind).
	CPUByKind map[string]float64 `json:"cpu_s_per_visit_by_process"`
	// Stack is what the machine and the rest of the stack spent.
	Stack stackShare `json:"stack"`
}

// runOn starts a worker of tabs tabs (not recycling its browser, so that
// every helper's CPU is counted) on the fixture at base, makes one warm-up
// visit and then n distinct misses, all at once (the worker takes tabs of
// them at a time).
func (s *suite) runOn(base string, tabs, n int, tag string) (waitRun, error) {
	if err := s.startWorker(tabs, "KISA_BROWSER_RECYCLE_AFTER=0", "KISA_SEARCH_URL="+base+"/search"); err != nil {
		return waitRun{}, err
	}
	if _, err := s.overview(overviewBody(fmt.Sprintf("%s warm-up %s %d", tag, s.res.Time, tabs), true)); err != nil {
		return waitRun{}, err
	}
	pid := s.worker.cmd.Process.Pid
	peak, before, stack := samplePeak(pid), treeCPUByKind(pid), readStackCPU(pid)
	wall, incomplete, err := s.runJobs(fmt.Sprintf("%s %d", tag, tabs), n, n, nil)
	share := shareOf(stack, readStackCPU(pid), n, wall.Seconds())
	by, cpu := treeCPUByKind(pid), 0.0
	for kind, v := range by {
		by[kind] = (v - before[kind]) / float64(n)
		cpu += by[kind]
	}
	_, pss := peak.end()
	if err != nil {
		return waitRun{}, err
	}
	return waitRun{Tabs: tabs, Jobs: n, JobsPerS: float64(n) / wall.Seconds(), CPUPerVisit: cpu, PeakPSSMB: pss,
		Incomplete: incomplete, CPUByKind: by, Stack: share}, nil
}

// wait: the cost of waiting. One tab, the same misses on the fixture
// streaming its overview for 1 s and for slowDelay, each read whole
// (results.complete checked); the figure is the difference of the CPU per
// visit, what a visit spends while the answer streams for 7 s more.
func (s *suite) wait() error {
	slow, err := s.slowFixtureURL()
	if err != nil {
		return err
	}
	fast, err := s.runOn(s.fixture, 1, s.n.Waits, "bench wait 1s")
	if err != nil {
		return err
	}
	long, err := s.runOn(slow, 1, s.n.Waits, "bench wait "+slowDelay)
	if err != nil {
		return err
	}
	d := long.CPUPerVisit - fast.CPUPerVisit
	incomplete := fast.Incomplete + long.Incomplete
	s.res.add(row{Figure: fmt.Sprintf("the cost of waiting: CPU per visit, fixture streaming %s minus 1 s (1 tab, %d visits each, 3 screenshots)", slowDelay, s.n.Waits),
		Kisa:     fmt.Sprintf("%.2f CPU-s (%.3f a second): %.2f at %s, %.2f at 1 s", d, d/7, long.CPUPerVisit, slowDelay, fast.CPUPerVisit),
		Baseline: fmt.Sprintf("%d of %d answers read whole", 2*s.n.Waits-incomplete, 2*s.n.Waits), Ratio: "-",
		Target: "<= 0.3 s for the 7 s; every answer complete", Met: yes(d <= 0.3 && incomplete == 0),
		Raw: map[string]any{"1s": fast, slowDelay: long}})
	s.res.note("The cost of waiting, CPU-s per visit by process: at 1 s %s; at %s %s.", byKind(fast.CPUByKind), slowDelay, byKind(long.CPUByKind))
	return nil
}

// byKind lists a CPU split by process, largest first.
func byKind(m map[string]float64) string {
	kinds := slices.Collect(maps.Keys(m))
	slices.SortFunc(kinds, func(a, b string) int { return cmp.Compare(m[b], m[a]) })
	var out []string
	for _, k := range kinds {
		out = append(out, fmt.Sprintf("%s %.2f", k, m[k]))
	}
	return strings.Join(out, ", ")
}

// slowTabs: throughput of one worker on the fixture streaming for
// slowDelay, by tab count (slowTabCounts), every answer read whole.
func (s *suite) slowTabs() error {
	slow, err := s.slowFixtureURL()
	if err != nil {
		return err
	}
	var runs []waitRun
	best := waitRun{}
	incomplete := 0
	var desc []string
	for _, t := range slowTabCounts {
		r, err := s.runOn(slow, t, max(s.n.Queries, 2*t), "bench slow")
		if err != nil {
			return err
		}
		runs = append(runs, r)
		incomplete += r.Incomplete
		desc = append(desc, fmt.Sprintf("%d: %.2f/s, %.2f CPU-s per visit, PSS %s, %d not whole", t, r.JobsPerS, r.CPUPerVisit, mb(r.PeakPSSMB), r.Incomplete))
		if r.JobsPerS > best.JobsPerS {
			best = r
		}
	}
	s.res.note("Throughput at %s, the whole machine (the suite runs the stack on the same cores): %s", slowDelay, stackNotes(runs))
	s.res.add(row{Figure: fmt.Sprintf("throughput, fixture streaming %s, 3 screenshots, by tabs", slowDelay),
		Kisa:     fmt.Sprintf("%.2f visits/s at %d tabs (%s)", best.JobsPerS, best.Tabs, strings.Join(desc, "; ")),
		Baseline: "-", Ratio: "-", Target: ">= 2 visits/s; every answer complete",
		Met: yes(best.JobsPerS >= 2 && incomplete == 0), Raw: runs})
	return nil
}

// stackNotes lists each run's machine share by tab count.
func stackNotes(runs []waitRun) string {
	var out []string
	for _, r := range runs {
		out = append(out, fmt.Sprintf("%d tabs: %s", r.Tabs, r.Stack))
	}
	return strings.Join(out, "; ")
}
