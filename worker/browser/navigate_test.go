package browser

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kisa-dev/kisa"
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

// TestVisitProxyAnswersError checks that a proxy's own error answer to
// the page's document (its 407 without credentials, 502 to 504) fails the
// visit as the proxy's (ErrProxy), the document's response being read
// when the navigation ends at its DOMContentLoaded.
func TestVisitProxyAnswersError(t *testing.T) {
	p := newTestPool(t, func(c *Config) { c.Tabs = 1 })
	for _, status := range []int{http.StatusProxyAuthRequired, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout} {
		t.Run(strconv.Itoa(status), func(t *testing.T) {
			proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if status == http.StatusProxyAuthRequired {
					w.Header().Set("Proxy-Authenticate", `Basic realm="kisa-test"`)
				}
				http.Error(w, "the proxy says no", status)
			}))
			t.Cleanup(proxy.Close)
			_, err := p.Visit(t.Context(), VisitRequest{URL: "http://127.0.0.1:18888/search?q=frogs&hl=en&gl=us",
				Proxy: &Proxy{Server: proxy.URL}})
			if !errors.Is(err, ErrProxy) || !errors.Is(err, kisa.Unavailable) {
				t.Errorf("Visit through a proxy answering %d: %v; want ErrProxy and kisa.Unavailable", status, err)
			}
		})
	}
}
