package browser

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kisa-dev/kisa/serpfixture"
	"github.com/kisa-dev/kisa/worker/serp"
)

// TestContainedTab visits the fixture's hostile page, which tries to
// reach a listener of the test's own on 127.0.0.2 with an image, an
// iframe, fetch, a popup, a download, a meta refresh and a location
// change after 1.5 s. The listener must get no request, and the visit
// must still end on the results page with its overview and screenshots;
// so must the visits of web search and AI Mode.
func TestContainedTab(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Fatalf("listen on 127.0.0.2: %v", err)
	}
	var mu sync.Mutex
	var reached []string
	target := &httptest.Server{Listener: ln, Config: &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		reached = append(reached, r.URL.Path)
	})}}
	target.Start()
	t.Cleanup(target.Close)

	fixture := serpfixture.New(serpfixture.Options{HostileTarget: ln.Addr().String(), Logger: testLogger(t)})
	srv := httptest.NewServer(fixture)
	t.Cleanup(srv.Close)
	p := newTestPool(t, func(c *Config) { c.Tabs = 1; c.SearchURL = srv.URL + "/search" })
	q := url.Values{"q": {serpfixture.HostileQuery}, "gl": {"us"}, "hl": {"en"}}
	res, err := p.Visit(t.Context(), VisitRequest{URL: srv.URL + "/search?" + q.Encode(), Screenshots: true})
	if err != nil {
		t.Fatalf("Visit: %v", err)
	}
	checkPNGs(t, res.Screenshots)
	if u, _ := url.Parse(res.FinalURL); u == nil || u.Host != srv.Listener.Addr().String() || u.Path != "/search" {
		t.Errorf("visit ended on %q, want the results page", res.FinalURL)
	}
	ov, err := serp.Extract(res.HTML)
	if err != nil || !ov.HasOverview {
		t.Errorf("Extract = HasOverview %v, err %v; want the page's overview", ov.HasOverview, err)
	}
	if p.Blocked() == 0 {
		t.Error("no request was counted as blocked")
	}
	// The other surfaces' visits are contained alike: the results page
	// read as it loads (web search), and AI Mode's answer page reached by
	// asking in its prompt box.
	blocked := p.Blocked()
	if res, err = p.Visit(t.Context(), VisitRequest{URL: srv.URL + "/search?" + q.Encode(), Mode: ModeResults}); err != nil {
		t.Fatalf("Visit (results): %v", err)
	}
	if web, err := serp.ExtractWeb(res.HTML); err != nil || len(web.Organic) == 0 {
		t.Errorf("ExtractWeb = %d results, err %v; want the page's organic results", len(web.Organic), err)
	}
	aim := url.Values{"udm": {serpfixture.AIModeUDM}, "gl": {"us"}, "hl": {"en"}}
	if res, err = p.Visit(t.Context(), VisitRequest{URL: srv.URL + "/search?" + aim.Encode(), Mode: ModeConversation,
		Prompts: []string{serpfixture.HostileQuery}}); err != nil {
		t.Fatalf("Visit (conversation): %v", err)
	}
	if a, err := serp.ExtractAIMode(res.HTML); err != nil || !a.HasAnswer {
		t.Errorf("ExtractAIMode = hasAnswer %v, err %v; want the page's answer", a.HasAnswer, err)
	}
	if p.Blocked() <= blocked {
		t.Error("the results and AI Mode visits blocked nothing")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(reached) > 0 {
		t.Errorf("the page reached %s: %q", ln.Addr(), reached)
	}
}

// TestPolicy checks where a tab may go when the search engine is
// www.google.com and gstatic.com is allowed.
func TestPolicy(t *testing.T) {
	pol := newPolicy("https://www.google.com/search", []string{"gstatic.com"})
	tests := []struct {
		url             string
		navigate, fetch bool
	}{
		{"https://www.google.com/search?q=a", true, true},
		{"https://consent.google.com/save", true, true},
		{"https://WWW.GOOGLE.COM/x", true, true},
		{"https://www.gstatic.com/a.js", false, true},
		{"https://gstatic.com/a.js", false, true},
		{"https://evilgstatic.com/a.js", false, false},
		{"https://example.com/", false, false},
		{"http://127.0.0.1/", false, false},
		{"http://127.0.0.2:8080/", false, false},
		{"http://10.0.0.1/", false, false},
		{"http://192.168.1.1/", false, false},
		{"http://169.254.169.254/latest/meta-data", false, false},
		{"http://[::1]/", false, false},
		{"http://[fe80::1]/", false, false},
		{"http://localhost/", false, false},
		{"http://0.0.0.0/", false, false},
		{"file:///etc/passwd", false, false},
		{"ftp://www.google.com/", false, false},
	}
	for _, tt := range tests {
		got := [2]bool{pol.navigation(tt.url), pol.request(tt.url)}
		if diff := cmp.Diff([2]bool{tt.navigate, tt.fetch}, got); diff != "" {
			t.Errorf("%s: [navigate, fetch] (-want +got):\n%s", tt.url, diff)
		}
	}
	local := newPolicy("http://127.0.0.1:8081/search", nil)
	if !local.navigation("http://127.0.0.1:9/search") || !local.request("http://127.0.0.1:9/x.png") || local.request("http://127.0.0.2/x.png") {
		t.Error("a loopback search host: want it (and only it) reachable")
	}
}

// TestUnneededNotFetched checks that a page's web fonts and media are not
// fetched, while its images are, and that they do not count as blocked.
func TestUnneededNotFetched(t *testing.T) {
	var mu sync.Mutex
	asked := map[string]bool{}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /page", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, `<!doctype html><style>@font-face { font-family: F; src: url(/font.woff2); } p { font-family: F; }</style>
<div id="search"><p>text</p><img src="/image.png"><video src="/video.mp4" autoplay muted></video></div>`)
	})
	for _, path := range []string{"/font.woff2", "/image.png", "/video.mp4"} {
		mux.HandleFunc("GET "+path, func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			defer mu.Unlock()
			asked[path] = true
			w.WriteHeader(http.StatusNotFound)
		})
	}
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	p := newTestPool(t, func(c *Config) { c.Tabs = 1 })
	if _, err := p.Visit(t.Context(), VisitRequest{URL: srv.URL + "/page?q=x"}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if want := map[string]bool{"/image.png": true}; !cmp.Equal(asked, want) {
		t.Errorf("the server was asked for %v, want only the image", asked)
	}
	if n := p.Blocked(); n != 0 {
		t.Errorf("%d requests counted as blocked, want 0", n)
	}
}
