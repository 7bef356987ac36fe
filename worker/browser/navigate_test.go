package browser

import (
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kisa-dev/kisa/serpfixture"
)

// TestVisitHeldSubresource visits results pages with an image the fixture
// holds for ten minutes (serpfixture.ParamHold), as a slow third-party
// host behind a proxy holds a page's load event: the first visit through
// the consent page, the second in a reused tab. Each must be read whole,
// exactly as the finished page reads, within a visit deadline of 60 s,
// with the image asked for and still held: navigation waits for the
// document, not for the page's last subresource.
func TestVisitHeldSubresource(t *testing.T) {
	fixture := serpfixture.New(serpfixture.Options{Consent: true, Logger: testLogger(t)})
	srv := httptest.NewServer(fixture)
	t.Cleanup(srv.Close)
	p := newTestPool(t, func(c *Config) {
		c.Tabs, c.VisitTimeout, c.OverviewWait, c.OverviewAppear = 1, time.Minute, 20*time.Second, 3*time.Second
	})
	held := url.Values{serpfixture.ParamDelay: {"1s"}, serpfixture.ParamHold: {"10m"}}
	for i, query := range []string{"why is the sky blue", "best hiking boots"} {
		res, err := p.Visit(t.Context(), VisitRequest{URL: fixtureURL(srv, "/search", query, held), Screenshots: true})
		if err != nil {
			t.Fatalf("Visit %q: %v", query, err)
		}
		if !res.Settled {
			t.Errorf("%q: not settled, want the overview read finished", query)
		}
		if diff := cmp.Diff(finalOverview(t, query), readOverview(t, res)); diff != "" {
			t.Errorf("%q: overview (-finished page +visit):\n%s", query, diff)
		}
		checkPNGs(t, res.Screenshots)
		if begun, answered := fixture.Held(); begun <= i || answered != 0 {
			t.Errorf("after visit %d: held image asked %d times and answered %d; want at least %d and 0", i+1, begun, answered, i+1)
		}
	}
	if got := fixture.ConsentShown(); got != 1 {
		t.Errorf("consent page shown %d times, want 1", got)
	}
}
