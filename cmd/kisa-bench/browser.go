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
	return s.fresh(1 / pts[0].JobsPerS * 1000)
}

// fresh compares kisa's time per job at one tab with a fresh Chromium
// per job (launch, visit, quit), as simple scrapers do.
func (s *suite) fresh(kisaMS float64) error {
	v, err := s.visits(true, s.n.Fresh, "bench-fresh-"+s.res.Time)
	if err != nil {
		return err
	}
	ratio := median(v) / kisaMS
	s.res.add(row{Figure: fmt.Sprintf("against a browser per job (%d jobs, one at a time)", s.n.Fresh),
		Kisa:     fmt.Sprintf("%.0f ms per job (1 tab, from the throughput run)", kisaMS),
		Baseline: fmt.Sprintf("median %.0f ms per job, p99 %.0f ms", median(v), p99(v)),
		Ratio:    fmt.Sprintf("%.2fx faster", ratio), Target: ">= 3x faster per job", Met: yes(ratio >= 3),
		Raw: map[string]any{"fresh_ms": v, "kisa_ms_per_job": kisaMS}})
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
