package worker

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/hibiken/asynq"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/jobs"
	"github.com/kisa-dev/kisa/serpfixture"
	"github.com/kisa-dev/kisa/storage"
	"github.com/kisa-dev/kisa/testenv"
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
		"kisa_worker_tasks_total{outcome=ok}{surface=ai-mode}":           2,
		"kisa_worker_tasks_total{outcome=no_answer}{surface=ai-mode}":    1,
		"kisa_worker_tasks_total{outcome=unrecognised}{surface=ai-mode}": 1,
		"kisa_worker_tasks_total{outcome=ok}{surface=web-search}":        1,
	} {
		if got[name] != want {
			t.Errorf("%s = %v, want %v", name, got[name], want)
		}
	}
}
