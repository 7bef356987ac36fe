package main

import (
	"fmt"
	"path/filepath"
	"strings"
)

// tabs: throughput of one worker with 1, 2, 4 and 8 tabs on distinct
// misses, its peak memory, and a fresh browser per job for comparison.
func (s *suite) tabs() error {
	type point struct {
		Tabs      int     `json:"tabs"`
		JobsPerS  float64 `json:"jobs_per_s"`
		PeakRSSMB float64 `json:"peak_rss_mb"`
	}
	var pts []point
	for _, t := range []int{1, 2, 4, 8} {
		if err := s.startWorker(t); err != nil {
			return err
		}
		if _, err := s.overview(overviewBody(fmt.Sprintf("bench tabs warm-up %s %d", s.res.Time, t), true)); err != nil {
			return err
		}
		peak := samplePeak(s.worker.cmd.Process.Pid)
		wall, err := s.runJobs(fmt.Sprintf("bench tabs %d", t), s.n.Queries, s.n.Queries, nil)
		rss := peak.end()
		if err != nil {
			return err
		}
		pts = append(pts, point{Tabs: t, JobsPerS: float64(s.n.Queries) / wall.Seconds(), PeakRSSMB: rss})
	}
	var desc []string
	best := pts[0]
	for _, p := range pts {
		desc = append(desc, fmt.Sprintf("%d: %.2f/s, %s", p.Tabs, p.JobsPerS, mb(p.PeakRSSMB)))
		if p.JobsPerS > best.JobsPerS*1.1 {
			best = p
		}
	}
	perTab := (pts[3].PeakRSSMB - pts[0].PeakRSSMB) / 7
	s.res.note("RSS is the sum over the worker and its Chromium processes (shared pages count once per process, so it overstates); memory per tab is (peak at 8 tabs - peak at 1 tab) / 7.")
	four := pts[2].JobsPerS / pts[0].JobsPerS
	s.res.add(row{Figure: fmt.Sprintf("throughput: %d distinct misses, fixture streaming 1 s, tabs: jobs/s, peak RSS", s.n.Queries),
		Kisa: strings.Join(desc, "; "), Baseline: fmt.Sprintf("1 tab: %.2f/s", pts[0].JobsPerS),
		Ratio:  fmt.Sprintf("4 tabs %.2fx; more tabs stop helping after %d; %.0f MB per extra tab", four, best.Tabs, perTab),
		Target: "4 tabs >= 3x one tab", Met: yes(four >= 3), Raw: pts})
	return s.fresh(1000/pts[0].JobsPerS, 1000/pts[2].JobsPerS)
}

// freshPar is how many jobs run at once on both sides of the main
// comparison with a browser per job: kisa's 4-tab point of the
// throughput figure (2 tabs per core, as README recommends, on this
// 2-core machine) against 4 fresh Chromiums at once.
const freshPar = 4

// fresh compares kisa's time per job with a fresh Chromium per job
// (launch, visit, quit), as simple scrapers do, on distinct queries: at
// the same parallelism (kisa with 4 tabs, 4 browsers at once; the
// target), and one job at a time (kisa with 1 tab). Time per job is the
// wall time of all jobs over their number.
func (s *suite) fresh(kisa1MS, kisa4MS float64) error {
	v1, wall1, err := s.visits(true, s.n.Fresh, 1, "bench-fresh1-"+s.res.Time)
	if err != nil {
		return err
	}
	v4, wall4, err := s.visits(true, s.n.Fresh, freshPar, "bench-fresh4-"+s.res.Time)
	if err != nil {
		return err
	}
	per1, per4 := wall1/float64(len(v1)), wall4/float64(len(v4))
	ratio := per4 / kisa4MS
	s.res.add(row{Figure: fmt.Sprintf("against a browser per job (%d jobs, %d at once; and one at a time)", s.n.Fresh, freshPar),
		Kisa: fmt.Sprintf("%.0f ms per job with %d tabs; %.0f ms with 1 tab (from the throughput run)", kisa4MS, freshPar, kisa1MS),
		Baseline: fmt.Sprintf("%.0f ms per job with %d browsers at once (each job median %.0f ms); %.0f ms one at a time",
			per4, freshPar, median(v4), per1),
		Ratio:  fmt.Sprintf("%.2fx faster at %d at once; %.2fx one at a time", ratio, freshPar, per1/kisa1MS),
		Target: ">= 3x faster per job", Met: yes(ratio >= 3),
		Raw: map[string]any{"fresh1_ms": v1, "fresh1_wall_ms": wall1, "fresh4_ms": v4, "fresh4_wall_ms": wall4,
			"kisa1_ms_per_job": kisa1MS, "kisa4_ms_per_job": kisa4MS}})
	return nil
}

// stability: n jobs in a row on one worker (2 tabs); RSS of the worker and
// its Chromium after a tenth of them and at the end, zombies, and
// profiles left behind once it stopped.
func (s *suite) stability() error {
	tmp := filepath.Join(s.dir, "tmp")
	if s.worker != nil {
		s.worker.stop()
		s.worker = nil
	}
	before := profiles(tmp)
	if err := s.startWorker(2); err != nil {
		return err
	}
	pid := s.worker.cmd.Process.Pid
	first := 0.0
	tenth := max(1, s.n.Stability/10)
	_, err := s.runJobs("bench stability", s.n.Stability, 2, func(done int) {
		if done == tenth {
			first = rssMB(pid)
		}
	})
	if err != nil {
		return err
	}
	last, z := rssMB(pid), lastingZombies(pid)
	s.worker.stop()
	s.worker = nil
	leaked := profiles(tmp) - before
	ratio := last / first
	s.res.add(row{Figure: fmt.Sprintf("stability: %d jobs in a row, 2 tabs", s.n.Stability),
		Kisa:     fmt.Sprintf("RSS %s after job %d; %d zombies; %d leaked profiles", mb(last), s.n.Stability, z, leaked),
		Baseline: fmt.Sprintf("RSS %s after job %d", mb(first), tenth),
		Ratio:    fmt.Sprintf("%.2fx", ratio), Target: "<= 1.2x; no zombie, no leaked profile",
		Met: yes(ratio <= 1.2 && z == 0 && leaked == 0),
		Raw: map[string]any{"rss_first_mb": first, "rss_last_mb": last, "zombies": z, "leaked_profiles": leaked}})
	return nil
}
