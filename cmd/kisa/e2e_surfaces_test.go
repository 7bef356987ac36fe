package main

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/kisa-dev/kisa/client"
	"github.com/kisa-dev/kisa/serpfixture"
	"github.com/kisa-dev/kisa/testenv"
)

// TestSurfacesEndToEnd drives AI Mode and web search through kisa web,
// kisa worker, Chromium and the fixture search engine (consent page on):
// synchronous answers with follow-ups and screenshots, the notice for
// France, the cache of each surface, async jobs, a batch that mixes the
// three surfaces, and a page not recognised.
func TestSurfacesEndToEnd(t *testing.T) {
	s := startStack(t, stackOptions{waitTimeout: "60s",
		fixture: serpfixture.Options{OverviewDelay: 800 * time.Millisecond, Consent: true}})
	ctx := context.Background()

	t.Run("AI Mode with a follow-up and screenshots", func(t *testing.T) {
		out, err := s.api.AIMode(ctx, client.AIModeRequest{Query: "why is the sky blue", CountryCode: "us", LanguageCode: "en",
			FollowUps: []string{"what about sunsets"}})
		if err != nil {
			t.Fatal(err)
		}
		r := out.Results
		if !r.HasAnswer || !r.Complete || !strings.Contains(strings.ToLower(r.Text), "scatter") || len(r.Sources) == 0 ||
			len(r.Citations) == 0 || len(r.RelatedLinks) != 1 || len(r.Turns) != 1 || r.Turns[0].Query != "what about sunsets" {
			t.Fatalf("answer = %+v", r)
		}
		if strings.Contains(r.Text, "Generating") {
			t.Error("the text holds the interface line Generating")
		}
		if r.Screenshots == nil {
			t.Fatal("no screenshots")
		}
		s.checkScreenshots(t, map[string]string{"initial": r.Screenshots.Initial, "afterLoad": r.Screenshots.BeforeSubmit,
			"afterExpand": r.Screenshots.Response})
	})

	t.Run("AI Mode whose links go through the engine's redirect", func(t *testing.T) {
		out, err := s.api.AIMode(ctx, client.AIModeRequest{Query: serpfixture.OpaqueQuery + " on mars rovers", CountryCode: "us", LanguageCode: "en",
			Screenshots: new(bool)})
		if err != nil {
			t.Fatal(err)
		}
		src := out.Results.Sources
		if len(src) < 2 {
			t.Fatalf("sources = %+v", src)
		}
		first, last := src[0], src[len(src)-1]
		if first.URL != "https://en.wikipedia.org/w/index.php?search=latest+news+on+mars+rovers" || first.Resolved == nil || !*first.Resolved ||
			first.PublishedAt != "2026-08-21" || first.Title == "" || first.Source != "en.wikipedia.org" {
			t.Errorf("first source = %+v, want its target, resolved, dated", first)
		}
		if !strings.HasSuffix(last.URL, "/goto?url=CAESexpired") || last.Resolved == nil || *last.Resolved || last.Title == "" {
			t.Errorf("last source = %+v, want the expired redirect link, resolved false", last)
		}
		if c := out.Results.Citations; len(c) == 0 || c[0].Resolved == nil || !*c[0].Resolved || strings.Contains(c[0].URL, "/goto") {
			t.Errorf("citations = %+v, want resolved targets", c)
		}
	})

	t.Run("AI Mode not offered in France", func(t *testing.T) {
		out, err := s.api.AIMode(ctx, client.AIModeRequest{Query: "pourquoi le ciel est bleu", CountryCode: "fr", LanguageCode: "fr",
			Screenshots: new(bool)})
		if err != nil {
			t.Fatal(err)
		}
		if out.Results.HasAnswer || out.Results.Reason != "not_available" || out.Results.Turns == nil {
			t.Errorf("answer = %+v, want hasAnswer false for the notice", out.Results)
		}
	})

	t.Run("web search, then from its own cache", func(t *testing.T) {
		req := client.WebSearchRequest{Query: "best hiking boots", CountryCode: "us", LanguageCode: "en", MaxResults: 3}
		out, err := s.api.WebSearch(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		o := out.Results.Organic
		if out.IsCached || len(o) != 3 || o[0].Position != 1 || o[0].URL != "https://en.wikipedia.org/w/index.php?search=best+hiking+boots" ||
			o[0].Title == "" || o[0].Description == "" {
			t.Fatalf("organic = %+v (cached %v), want the fixture's first three", o, out.IsCached)
		}
		visits := s.fixture.Visits("best hiking boots")
		req.Fields, req.MaxResults = []string{"url"}, 0
		again, err := s.api.WebSearch(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if !again.IsCached || len(again.Results.Organic) != 5 || again.Results.Organic[0].Title != "" {
			t.Errorf("second search = %+v, want the cached five with urls only", again)
		}
		if s.fixture.Visits("best hiking boots") != visits {
			t.Error("the cached search visited the page again")
		}
		ov, err := s.api.Overview(ctx, client.OverviewRequest{Query: "best hiking boots", CountryCode: "us", LanguageCode: "en", Screenshots: new(bool)})
		if err != nil || ov.IsCached || !ov.Results.HasOverview {
			t.Errorf("the overview of the same query = %+v, %v; want a visit of its own", ov, err)
		}
	})

	t.Run("web search on a phone and on real pages", func(t *testing.T) {
		// The fixture's phone page: titles div[role=heading], the organic list
		// in one wrapper with "People also ask" and videos.
		out, err := s.api.WebSearch(ctx, client.WebSearchRequest{Query: "best hiking boots", CountryCode: "us", LanguageCode: "en", Device: "mobile"})
		if err != nil {
			t.Fatal(err)
		}
		o := out.Results.Organic
		if out.IsCached || len(o) != 5 || o[0].URL != "https://en.wikipedia.org/w/index.php?search=best+hiking+boots" || o[0].Title != "best hiking boots - Wikipedia" {
			t.Errorf("phone's organic = %+v (cached %v), want the fixture's five", o, out.IsCached)
		}
		// The real pages of "google" of 2023: the phone's (3 results, as its
		// publisher counts them) and the desktop's (9).
		for _, c := range []struct {
			device string
			n      int
			third  string
		}{{"mobile", 3, "https://www.google.com/account/about/"}, {"desktop", 9, "https://www.google.com/account/about/"}} {
			out, err := s.api.WebSearch(ctx, client.WebSearchRequest{Query: "google", CountryCode: "us", LanguageCode: "en", Device: c.device})
			if err != nil {
				t.Fatalf("%s: %v", c.device, err)
			}
			o := out.Results.Organic
			if len(o) != c.n || o[2].URL != c.third || o[2].Title != "Google Account" {
				t.Errorf("%s: organic = %+v, want %d results, the third %s", c.device, o, c.n, c.third)
			}
		}
	})

	t.Run("async job and a batch of every surface", func(t *testing.T) {
		job, err := s.api.SubmitAIMode(ctx, client.AIModeRequest{Query: "how do tides work", CountryCode: "us", LanguageCode: "en",
			Screenshots: new(bool)}, "")
		if err != nil {
			t.Fatal(err)
		}
		done, err := s.api.WaitJob(ctx, job.ID, 100*time.Millisecond)
		if err != nil || done.Status != client.JobDone {
			t.Fatalf("job = %+v, %v", done, err)
		}
		if a, err := done.AIModeResult(); err != nil || !a.Results.HasAnswer {
			t.Errorf("job result = %+v, %v; want an answer", a, err)
		}
		batch, err := s.api.SubmitBatchItems(ctx, []client.BatchItem{
			client.OverviewItem(client.OverviewRequest{Query: "why do cats purr", CountryCode: "us", LanguageCode: "en", Screenshots: new(bool)}),
			client.AIModeItem(client.AIModeRequest{Query: "why do cats purr", CountryCode: "us", LanguageCode: "en", Screenshots: new(bool)}),
			client.WebSearchItem(client.WebSearchRequest{Query: "why do cats purr", CountryCode: "us", LanguageCode: "en", MaxResults: 2}),
		}, "")
		if err != nil {
			t.Fatal(err)
		}
		testenv.Eventually(t, 90*time.Second, "the batch to end", func() bool {
			b, err := s.api.GetBatch(ctx, batch.ID)
			return err == nil && b.Status == "done"
		})
		var got, surfaces []string
		for _, bj := range batch.Jobs {
			surfaces = append(surfaces, bj.Surface)
			j, err := s.api.GetJob(ctx, bj.ID)
			if err != nil || j.Status != client.JobDone {
				t.Fatalf("job %s = %+v, %v", bj.ID, j, err)
			}
			if a, err := j.AIModeResult(); err == nil && a.Results.HasAnswer {
				got = append(got, "ai-mode")
			} else if w, err := j.WebSearchResult(); err == nil && len(w.Results.Organic) == 2 {
				got = append(got, "web-search")
			} else if j.Result != nil && j.Result.Results.HasOverview {
				got = append(got, "ai-overview")
			}
		}
		if strings.Join(got, ",") != "ai-overview,ai-mode,web-search" || strings.Join(surfaces, ",") != ",ai-mode,web-search" {
			t.Errorf("batch results read as %v, jobs name surfaces %q; want one of each surface in order", got, surfaces)
		}
	})

	t.Run("AI Mode page not recognised is the incident 500", func(t *testing.T) {
		_, err := s.api.AIMode(ctx, client.AIModeRequest{Query: serpfixture.UnknownQuery, LanguageCode: "en", Screenshots: new(bool)})
		if client.StatusOf(err) != http.StatusInternalServerError || !strings.Contains(err.Error(), "incident") {
			t.Errorf("err = %v; want 500 with the incident phrase", err)
		}
	})
}
