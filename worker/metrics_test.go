package worker

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/kisa-dev/kisa/storage"
	"github.com/kisa-dev/kisa/testenv"
)

// series returns the gathered samples of reg as name{labels} → value
// (histograms by their count).
func series(tb testing.TB, reg *prometheus.Registry) map[string]float64 {
	tb.Helper()
	fams, err := reg.Gather()
	if err != nil {
		tb.Fatal(err)
	}
	out := map[string]float64{}
	for _, f := range fams {
		for _, m := range f.GetMetric() {
			name := f.GetName()
			for _, lp := range m.GetLabel() {
				name += "{" + lp.GetName() + "=" + lp.GetValue() + "}"
			}
			switch {
			case m.Counter != nil:
				out[name] = m.GetCounter().GetValue()
			case m.Gauge != nil:
				out[name] = m.GetGauge().GetValue()
			case m.Histogram != nil:
				out[name+"_count"] = float64(m.GetHistogram().GetSampleCount())
			}
		}
	}
	return out
}

// TestJobMetrics runs tasks with each outcome the fixture can give and
// reads the worker's series: jobs by outcome, their durations, the
// browser's launches and tabs; the pool reports itself ready.
func TestJobMetrics(t *testing.T) {
	s3 := testenv.S3(t)
	e := newHandlerEnv(t, s3)
	shots, _ := storage.NewArtifacts(s3)
	if err := shots.EnsureBucket(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"why is the sky blue", "show me no overview", "captcha now"} {
		e.process(t, q, false)
	}
	want := map[string]float64{
		"kisa_worker_tasks_total{outcome=ok}{surface=ai-overview}":                          1,
		"kisa_worker_tasks_total{outcome=no_overview}{surface=ai-overview}":                 1,
		"kisa_worker_tasks_total{outcome=blocked}{surface=ai-overview}":                     1,
		"kisa_worker_task_duration_seconds{outcome=ok}{surface=ai-overview}_count":          1,
		"kisa_worker_task_duration_seconds{outcome=no_overview}{surface=ai-overview}_count": 1,
		"kisa_worker_task_duration_seconds{outcome=blocked}{surface=ai-overview}_count":     1,
		"kisa_browser_launches_total":                                                       1,
		// Steps are timed for visits that end with a page (not the CAPTCHA).
		"kisa_worker_step_duration_seconds{step=navigate}_count":    2,
		"kisa_worker_step_duration_seconds{step=settle}_count":      2,
		"kisa_worker_step_duration_seconds{step=expand}_count":      2,
		"kisa_worker_step_duration_seconds{step=screenshots}_count": 2,
		"kisa_worker_step_duration_seconds{step=upload}_count":      2,
		"kisa_browser_tabs_busy":                                    0,
		"kisa_browser_tabs":                                         1,
	}
	got := series(t, e.reg)
	// The captured CAPTCHA page's scripts and frames from www.google.com
	// are stopped by the containment; how many, is the page's business.
	if got["kisa_browser_blocked_total"] == 0 {
		t.Errorf("kisa_browser_blocked_total = %v, want the CAPTCHA page's requests counted", got["kisa_browser_blocked_total"])
	}
	delete(got, "kisa_browser_blocked_total")
	// The consent page shows on the fixture's first visit, if it is on.
	if n := got["kisa_worker_step_duration_seconds{step=consent}_count"]; n > 1 {
		t.Errorf("consent steps = %v, want at most 1 (the cookie is kept)", n)
	}
	delete(got, "kisa_worker_step_duration_seconds{step=consent}_count")
	// The first visit opens a tab; the next one reuses it when it was
	// wiped in time, else opens another.
	if n := got["kisa_worker_step_duration_seconds{step=open}_count"]; n < 1 || n > 2 {
		t.Errorf("open steps = %v, want 1 or 2", n)
	}
	delete(got, "kisa_worker_step_duration_seconds{step=open}_count")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("worker series (-want +got):\n%s", diff)
	}
	if err := e.pool.Ready(); err != nil {
		t.Errorf("pool.Ready() = %v, want nil", err)
	}
	e.pool.Close()
	if err := e.pool.Ready(); err == nil {
		t.Error("pool.Ready() after Close = nil, want an error")
	}
}

// TestStorageDownOutcome: screenshots that cannot be stored count as
// unavailable.
func TestStorageDownOutcome(t *testing.T) {
	s3 := testenv.S3(t)
	s3.Endpoint = "127.0.0.1:1"
	e := newHandlerEnv(t, s3)
	e.process(t, "why is the sky blue", true)
	if got := series(t, e.reg)["kisa_worker_tasks_total{outcome=unavailable}{surface=ai-overview}"]; got != 1 {
		t.Errorf("unavailable jobs = %v, want 1:\n%v", got, series(t, e.reg))
	}
}
