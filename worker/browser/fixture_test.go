package browser

import (
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/serpfixture"
	"github.com/kisa-dev/kisa/worker/serp"
)

// TestVisitFixture visits the fixture search engine (consent page on):
// the query answered with the real captured results page, then one whose
// overview streams in collapsed. serp.Extract must find each overview in
// what the visit returns, and the second must have been expanded.
func TestVisitFixture(t *testing.T) {
	fixture := serpfixture.New(serpfixture.Options{Consent: true, Logger: testLogger(t)})
	srv := httptest.NewServer(fixture)
	t.Cleanup(srv.Close)
	p := newTestPool(t, func(c *Config) { c.Tabs = 1 })
	tests := []struct {
		query    string
		wantText string // in the overview's text, lower-cased
	}{
		{serpfixture.RealPageQuery, "frog"},
		{"why is the sky blue", "scatter"},
	}
	for _, tt := range tests {
		q := url.Values{"q": {tt.query}, "gl": {"us"}, "hl": {"en"}}
		real := tt.query == serpfixture.RealPageQuery
		res, err := p.Visit(t.Context(), VisitRequest{URL: srv.URL + "/search?" + q.Encode(), Screenshots: true,
			FullPage: func(string) bool { return real }})
		if err != nil {
			t.Fatalf("Visit %q: %v", tt.query, err)
		}
		checkPNGs(t, res.Screenshots)
		checkLongShots(t, res, real)
		ov, err := serp.Extract(res.HTML)
		if err != nil {
			t.Fatalf("Extract %q: %v", tt.query, err)
		}
		if !ov.HasOverview || !strings.Contains(strings.ToLower(ov.Text), tt.wantText) || len(ov.Sources) == 0 {
			t.Errorf("Extract %q = HasOverview %v, %d sources, text %.80q; want an overview about %q with sources",
				tt.query, ov.HasOverview, len(ov.Sources), ov.Text, tt.wantText)
		}
		if doc, err := goquery.NewDocumentFromReader(strings.NewReader(res.HTML)); err != nil || doc.Find(serp.ShowMoreCollapsed).Length() > 0 {
			t.Errorf("%q: overview still collapsed after the visit", tt.query)
		}
	}
	if got := fixture.ConsentShown(); got != 1 {
		t.Errorf("fixture showed the consent page %d times, want 1 (its cookie is kept)", got)
	}
}

// checkLongShots checks, for the real page's long overview (real), that
// the afterExpand screenshot shows the whole block beyond the viewport and
// that the full-page screenshot asked for is there; other pages get none.
func checkLongShots(tb testing.TB, res VisitResult, real bool) {
	tb.Helper()
	if !real {
		if res.FullPage != nil {
			tb.Error("full-page screenshot taken although FullPage said no")
		}
		return
	}
	if h := pngHeight(tb, res.Screenshots[kisa.ShotAfterExpand]); h <= windowHeight {
		tb.Errorf("afterExpand of a long overview is %d px high, want more than the %d px viewport", h, windowHeight)
	}
	if res.FullPage == nil || pngHeight(tb, res.FullPage) <= windowHeight {
		tb.Error("no full-page screenshot taller than the viewport, although FullPage asked for one")
	}
}
