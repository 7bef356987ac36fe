package worker

import (
	"errors"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/jobs"
	"github.com/kisa-dev/kisa/serpfixture"
	"github.com/kisa-dev/kisa/storage"
	"github.com/kisa-dev/kisa/testenv"
	"github.com/kisa-dev/kisa/worker/serp"
)

// TestSurfaceTasks runs tasks of AI Mode and web search through the same
// handler as the overview's, against the fixture and Chromium: the
// answer with its follow-up and screenshots, the notice for France, a
// page not recognised (evidence kept), the organic results; each counted
// under its surface.
func TestSurfaceTasks(t *testing.T) {
	s3 := testenv.S3(t)
	e := newHandlerEnv(t, s3)
	if err := e.shots.EnsureBucket(t.Context()); err != nil {
		t.Fatal(err)
	}
	task := func(surface kisa.Surface, query, country string, followUps ...string) jobs.OverviewPayload {
		return jobs.OverviewPayload{Key: "k-" + testenv.RandomHex(4), Query: query, CountryCode: country, LanguageCode: "en",
			Screenshots: surface == kisa.SurfaceAIMode, Surface: surface, FollowUps: followUps}
	}
	t.Run("AI Mode with a follow-up", func(t *testing.T) {
		out, err := e.processPayload(t, task(kisa.SurfaceAIMode, "why is the sky blue", "us", "what about sunsets"))
		if err != nil || out.Result == nil || out.Result.AIMode == nil {
			t.Fatalf("err %v, outcome %+v", err, out)
		}
		r := out.Result.AIMode
		if !r.HasAnswer || !r.Complete || !strings.Contains(r.Text, "scatter") || len(r.Sources) == 0 ||
			len(r.Turns) != 1 || r.Turns[0].Query != "what about sunsets" || !r.Turns[0].Complete {
			t.Errorf("AI Mode = hasAnswer %v, complete %v, %d sources, turns %+v, text %.60q", r.HasAnswer, r.Complete, len(r.Sources), r.Turns, r.Text)
		}
		var names []string
		for name := range out.Result.Screenshots {
			names = append(names, name)
		}
		slices.Sort(names)
		if want := slices.Sorted(slices.Values(kisa.AIModeShotNames)); !slices.Equal(names, want) {
			t.Errorf("screenshots %v, want %v", names, want)
		}
	})
	t.Run("AI Mode with opaque links", func(t *testing.T) {
		query := "latest news on mars rovers"
		out, err := e.processPayload(t, task(kisa.SurfaceAIMode, query, "us"))
		if err != nil || out.Result == nil || out.Result.AIMode == nil {
			t.Fatalf("err %v, outcome %+v", err, out)
		}
		want := opaqueTargets(t, e.h.searchURL, query)
		r := out.Result.AIMode
		if len(r.Sources) != len(want) || len(r.Citations) != len(want) {
			t.Fatalf("%d sources, %d citations; want %d of each", len(r.Sources), len(r.Citations), len(want))
		}
		yes, no := true, false
		for i, s := range r.Sources {
			w := want[i]
			c := r.Citations[slices.IndexFunc(r.Citations, func(c kisa.Citation) bool { return c.Title == s.Title })]
			if s.URL != w.url || c.URL != w.url || !reflect.DeepEqual(s.Resolved, map[bool]*bool{true: &yes, false: &no}[w.resolved]) ||
				!reflect.DeepEqual(c.Resolved, s.Resolved) || s.Title == "" || s.Source == "" || s.Icon == "" {
				t.Errorf("source %d = %+v (resolved %v), citation %+v; want url %q, resolved %v", i+1, s, *s.Resolved, c, w.url, w.resolved)
			}
		}
		// The cards' dates: a full date as it is, "3 days ago" at the
		// visit's time, none.
		dates := []string{"2026-08-21", out.Result.TakenAt.AddDate(0, 0, -3).Format(time.DateOnly), "2026-08-27", "", "2026-08-21"}
		for i, s := range r.Sources {
			if s.PublishedAt != dates[i] {
				t.Errorf("source %d publishedAt %q, want %q", i+1, s.PublishedAt, dates[i])
			}
		}
	})
	t.Run("overview with opaque links", func(t *testing.T) {
		out, err := e.processPayload(t, task(kisa.SurfaceOverview, "latest news on mars rovers", "us"))
		if err != nil || out.Result == nil || !out.Result.Overview.HasOverview {
			t.Fatalf("err %v, outcome %+v", err, out)
		}
		ss := out.Result.Overview.Sources
		if len(ss) < 2 || ss[0].Resolved == nil || !*ss[0].Resolved || strings.Contains(ss[0].URL, "/goto") ||
			ss[len(ss)-1].Resolved == nil || *ss[len(ss)-1].Resolved || !strings.HasPrefix(ss[len(ss)-1].URL, e.h.searchURL.Scheme+"://"+e.h.searchURL.Host+"/goto?url=") {
			t.Errorf("overview sources %+v: want the first resolved to its target, the expired one the fixture's redirect link", ss)
		}
	})
	t.Run("AI Mode answer that never finishes", func(t *testing.T) {
		out, err := e.processPayload(t, task(kisa.SurfaceAIMode, serpfixture.StalledQuery, "us", "never asked"))
		if err != nil || out.Result == nil || out.Result.AIMode == nil {
			t.Fatalf("err %v, outcome %+v", err, out)
		}
		if r := out.Result.AIMode; !r.HasAnswer || r.Complete || r.Text == "" || len(r.Turns) != 0 {
			t.Errorf("AI Mode = hasAnswer %v, complete %v, %d turns; want part of an answer, incomplete, the follow-up not asked", r.HasAnswer, r.Complete, len(r.Turns))
		}
	})
	t.Run("AI Mode not available", func(t *testing.T) {
		out, err := e.processPayload(t, task(kisa.SurfaceAIMode, "pourquoi", "fr"))
		if err != nil || out.Result == nil || out.Result.AIMode == nil {
			t.Fatalf("err %v, outcome %+v", err, out)
		}
		if r := out.Result.AIMode; r.HasAnswer || r.Reason != kisa.ReasonNotAvailable {
			t.Errorf("AI Mode = %+v, want the notice", r)
		}
	})
	t.Run("AI Mode page not recognised", func(t *testing.T) {
		out, err := e.processPayload(t, task(kisa.SurfaceAIMode, serpfixture.UnknownQuery, "us"))
		if !errors.Is(err, asynq.SkipRetry) || out.Failure != kisa.Unrecognised || !strings.HasPrefix(out.Evidence, storage.EvidencePrefix) {
			t.Fatalf("err %v, outcome %+v; want SkipRetry, unrecognised and evidence", err, out)
		}
	})
	t.Run("web search", func(t *testing.T) {
		out, err := e.processPayload(t, task(kisa.SurfaceWeb, "best hiking boots", "us"))
		if err != nil || out.Result == nil || out.Result.Web == nil {
			t.Fatalf("err %v, outcome %+v", err, out)
		}
		if o := out.Result.Web.Organic; len(o) != 5 || o[0].Position != 1 || !strings.HasPrefix(o[0].URL, "https://en.wikipedia.org/") {
			t.Errorf("organic = %+v, want the fixture's five", o)
		}
		if out.Result.RawHTML == "" {
			t.Error("the page's HTML was not stored")
		}
	})
	got := series(t, e.reg)
	for name, want := range map[string]float64{
		"kisa_worker_tasks_total{outcome=ok}{surface=ai-mode}":           3,
		"kisa_worker_tasks_total{outcome=no_answer}{surface=ai-mode}":    1,
		"kisa_worker_tasks_total{outcome=unrecognised}{surface=ai-mode}": 1,
		"kisa_worker_tasks_total{outcome=ok}{surface=web-search}":        1,
	} {
		if got[name] != want {
			t.Errorf("%s = %v, want %v", name, got[name], want)
		}
	}
}

// opaqueTarget is where an opaque redirect of the fixture leads: its
// target, or the redirect link itself when it cannot be followed.
type opaqueTarget struct {
	url      string
	resolved bool
}

// opaqueTargets returns, for each source of the fixture's AI Mode answer
// to query (serpfixture.OpaqueQuery), where its redirect leads, asked of
// the fixture without following it.
func opaqueTargets(t *testing.T, search *url.URL, query string) []opaqueTarget {
	t.Helper()
	page, err := serpfixture.FinalAIModePage(query, "en", "us")
	if err != nil {
		t.Fatal(err)
	}
	ans, err := serp.ExtractAIModeAt(page, search.String())
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	var out []opaqueTarget
	for _, s := range ans.Sources {
		resp, err := client.Get(s.URL)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if loc := resp.Header.Get("Location"); resp.StatusCode == http.StatusFound && loc != "" {
			out = append(out, opaqueTarget{url: loc, resolved: true})
		} else {
			out = append(out, opaqueTarget{url: s.URL})
		}
	}
	if len(out) < 2 || !out[0].resolved || out[len(out)-1].resolved {
		t.Fatalf("fixture redirects %+v: want targets, and an expired one last", out)
	}
	return out
}
