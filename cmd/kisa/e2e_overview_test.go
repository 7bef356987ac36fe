package main

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kisa-dev/kisa/client"
	"github.com/kisa-dev/kisa/serpfixture"
)

// TestOverviewEndToEnd runs the AI overview flow through HTTP, asynq, a
// real Chromium, MinIO and the fixture search engine.
func TestOverviewEndToEnd(t *testing.T) {
	s := startStack(t, stackOptions{waitTimeout: "60s",
		fixture: serpfixture.Options{OverviewDelay: 1200 * time.Millisecond, Consent: true}})

	t.Run("fresh answer with screenshots, after the consent page", func(t *testing.T) {
		out := s.mustOK(t, `{"query":"why is the sky blue","countryCode":"us","languageCode":"en"}`)
		d := out.Data
		if d.IsCached || d.CacheExpiresIn != nil {
			t.Errorf("isCached=%v cacheExpiresIn=%v, want false and null", d.IsCached, d.CacheExpiresIn)
		}
		r := d.Results
		if !r.HasOverview || r.Text == "" || len(r.Paragraphs) == 0 || len(r.Citations) == 0 || len(r.Sources) == 0 {
			t.Fatalf("results = %+v, want an overview with paragraphs, citations and sources", r)
		}
		for _, ui := range []string{"AI Overview", "Show more", "Show all"} {
			if strings.Contains(r.Text, ui) {
				t.Errorf("text contains the interface string %q", ui)
			}
		}
		s.checkScreenshots(t, r.Screenshots)
		if n := s.fixture.ConsentShown(); n != 1 {
			t.Errorf("consent page shown %d times, want 1", n)
		}
	})

	t.Run("identical request is cached, case and spaces folded", func(t *testing.T) {
		before := s.fixture.Visits("why is the sky blue")
		out := s.mustOK(t, `{"query":"  WHY is the   sky Blue ","countryCode":"US","languageCode":"en"}`)
		d := out.Data
		if !d.IsCached || d.CacheExpiresIn == nil || *d.CacheExpiresIn < 100 || *d.CacheExpiresIn > 120 {
			t.Errorf("isCached=%v cacheExpiresIn=%v, want true and 100..120", d.IsCached, d.CacheExpiresIn)
		}
		if after := s.fixture.Visits("why is the sky blue"); after != before {
			t.Errorf("visits went from %d to %d on a cached answer", before, after)
		}
		s.checkScreenshots(t, d.Results.Screenshots)
	})

	t.Run("fields trim the cached answer", func(t *testing.T) {
		out := s.mustOK(t, `{"query":"why is the sky blue","countryCode":"us","languageCode":"en",
			"fields":{"sources":["url"],"citations":["title","source"],"paragraphs":{"text":false,"citations":["url"]}}}`)
		r := out.Data.Results
		if !out.Data.IsCached {
			t.Error("fields should be served from the same cache entry")
		}
		for _, src := range r.Sources {
			if keys := sortedKeys(src); !slices.Equal(keys, []string{"url"}) {
				t.Errorf("source keys = %v, want [url]", keys)
			}
		}
		for _, c := range r.Citations {
			if keys := sortedKeys(c); !slices.Equal(keys, []string{"source", "title"}) {
				t.Errorf("citation keys = %v, want [source title]", keys)
			}
		}
		for _, p := range r.Paragraphs {
			if p.Text != nil {
				t.Errorf("paragraph has text %q, want none", *p.Text)
			}
			for _, c := range p.Citations {
				if keys := sortedKeys(c); !slices.Equal(keys, []string{"url"}) {
					t.Errorf("paragraph citation keys = %v, want [url]", keys)
				}
			}
		}
	})

	t.Run("screenshots false has no screenshots key", func(t *testing.T) {
		_, _, raw := s.post(t, `{"query":"why is the sky blue","countryCode":"us","languageCode":"en","screenshots":false}`)
		if strings.Contains(string(raw), `"screenshots"`) {
			t.Errorf("reply has a screenshots key: %s", raw)
		}
	})

	t.Run("cache disabled neither reads nor writes", func(t *testing.T) {
		q := `"query":"how do tides work","countryCode":"gb","languageCode":"en","screenshots":false`
		for i := 0; i < 2; i++ {
			if out := s.mustOK(t, `{`+q+`,"cache":{"enabled":false}}`); out.Data.IsCached {
				t.Errorf("request %d with cache off was served from the cache", i)
			}
			s.waitIdle(t)
		}
		if out := s.mustOK(t, `{`+q+`}`); out.Data.IsCached {
			t.Error("a request with cache off wrote the cache")
		}
		if n := s.fixture.Visits("how do tides work"); n != 3 {
			t.Errorf("visits = %d, want 3", n)
		}
	})

	t.Run("raw HTML of a cached answer, freshly signed", func(t *testing.T) {
		out := s.mustOK(t, `{"query":"why is the sky blue","countryCode":"us","languageCode":"en","rawHtml":true}`)
		if !out.Data.IsCached || !strings.Contains(download(t, out.Data.Results.RawHTML), `jscontroller="EYwa3d"`) {
			t.Errorf("isCached=%v, rawHtml %q: want a cached answer whose rawHtml downloads the page", out.Data.IsCached, out.Data.Results.RawHTML)
		}
	})

	t.Run("2025 capture and a Portuguese page through Chromium", func(t *testing.T) {
		out := s.mustOK(t, `{"query":"mobile app development","languageCode":"en","screenshots":false}`)
		r := out.Data.Results
		if !r.HasOverview || !r.Complete || !strings.HasPrefix(r.Text, "Mobile app development is the process") || len(r.Sources) != 13 {
			t.Errorf("2025 page: complete=%v, %d sources, text %.60q", r.Complete, len(r.Sources), r.Text)
		}
		out = s.mustOK(t, `{"query":"por que o céu é azul","countryCode":"br","languageCode":"pt","screenshots":false}`)
		if r := out.Data.Results; !strings.HasPrefix(r.Text, "“por que o céu é azul”") || strings.Contains(r.Text, "Visão geral") {
			t.Errorf("Portuguese text = %.80q", r.Text)
		}
	})

	t.Run("page not recognised is the incident 500", func(t *testing.T) {
		res, out, _ := s.post(t, `{"query":"unknown markup","languageCode":"en","screenshots":false}`)
		if res.StatusCode != http.StatusInternalServerError || !strings.Contains(out.Error, "incident") {
			t.Errorf("status %d, error %q; want 500 with the incident phrase", res.StatusCode, out.Error)
		}
	})

	t.Run("German page", func(t *testing.T) {
		out, err := s.api.Overview(context.Background(), client.OverviewRequest{Query: "warum ist der himmel blau", Screenshots: new(bool)})
		if err != nil {
			t.Fatal(err)
		}
		if !out.Results.HasOverview || !strings.Contains(strings.ToLower(out.Results.Text), "himmel") || out.Results.Screenshots != nil {
			t.Errorf("German overview = %+v, want one about the Himmel without screenshots", out.Results)
		}
	})

	t.Run("no overview", func(t *testing.T) {
		_, _, raw := s.post(t, `{"query":"no overview please","languageCode":"en","screenshots":false}`)
		want := `"results":{"citations":[],"complete":true,"hasOverview":false,"paragraphs":[],"sources":[],"text":""}`
		if !strings.Contains(string(raw), want) {
			t.Errorf("reply = %s, want it to contain %s", raw, want)
		}
	})

	t.Run("CAPTCHA is 503 with Retry-After, and is not cached", func(t *testing.T) {
		for i := 1; i <= 2; i++ {
			res, out, raw := s.post(t, `{"query":"captcha test","languageCode":"en","screenshots":false}`)
			if res.StatusCode != http.StatusServiceUnavailable || res.Header.Get("Retry-After") == "" ||
				!strings.Contains(out.Error, "search engine refused") {
				t.Errorf("try %d: status %d, Retry-After %q, body %s", i, res.StatusCode, res.Header.Get("Retry-After"), raw)
			}
			if n := s.fixture.Visits("captcha test"); n != i {
				t.Errorf("try %d: visits = %d, want %d (a fresh visit each time)", i, n, i)
			}
			s.waitIdle(t)
		}
	})

	t.Run("the real captured page", func(t *testing.T) {
		out := s.mustOK(t, `{"query":"why are frogs green","countryCode":"us","languageCode":"en","screenshots":false}`)
		r := out.Data.Results
		if !strings.HasPrefix(r.Text, "Frogs are green primarily for camouflage") || len(r.Sources) != 10 {
			t.Errorf("text starts %.60q, %d sources; want the frog overview with 10 sources", r.Text, len(r.Sources))
		}
	})

	t.Run("20 identical concurrent requests share one visit", func(t *testing.T) {
		const n = 20
		var wg sync.WaitGroup
		codes := make([]int, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res, _, _, err := s.postErr(`{"query":"what is coalescing","languageCode":"en","screenshots":true}`)
				if err != nil {
					t.Error(err)
					return
				}
				codes[i] = res.StatusCode
			}()
		}
		wg.Wait()
		for i, c := range codes {
			if c != http.StatusOK {
				t.Errorf("request %d: status %d", i, c)
			}
		}
		if v := s.fixture.Visits("what is coalescing"); v != 1 {
			t.Errorf("fixture visits = %d, want 1", v)
		}
	})

	t.Run("operations: metrics, health, healthcheck, rate headers", s.checkOperations)
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

var _ = fmt.Sprint
