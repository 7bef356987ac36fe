package serpfixture_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/go-cmp/cmp"

	"github.com/kisa-dev/kisa/serpfixture"
	"github.com/kisa-dev/kisa/serpfixture/captured"
	"github.com/kisa-dev/kisa/worker/serp"
)

// TestSearch checks status, redirect and content of /search and the other
// plain routes, without consent.
func TestSearch(t *testing.T) {
	srv := serpfixture.New(serpfixture.Options{})
	tests := []struct {
		name         string
		method       string
		target       string
		wantStatus   int
		wantLocation string   // prefix
		wantBody     []string // substrings
		notBody      []string
	}{
		{name: "English overview streams", target: "/search?q=why+is+the+sky+blue&hl=en", wantStatus: 200,
			wantBody: []string{`<html lang="en">`, `>AI Overview</h1>`, `<div jscontroller="EYwa3d"`, `id="m-x-content"`, `window.aioStream`, `class="aio-loading"`, `value="why is the sky blue"`},
			notBody:  []string{`data-loaded="1"`, `class="Y3BBE"`}},
		{name: "German overview", target: "/search?q=warum+ist+der+himmel+blau&hl=de", wantStatus: 200,
			wantBody: []string{`<html lang="de">`, `>Übersicht mit KI</h1>`, `Mehr anzeigen: Übersicht mit KI`, `Der Himmel ist blau`}},
		{name: "final state", target: "/search?q=why+is+the+sky+blue&final=1", wantStatus: 200,
			wantBody: []string{`data-loaded="1"`, `aria-expanded="true" aria-controls="m-x-content"`, `class="Y3BBE"`, `<!--Sv6Kpe[[&quot;`},
			notBody:  []string{`window.aioStream = `, `aria-expanded="false"`}},
		{name: "no overview phrase", target: "/search?q=show+me+no+overview", wantStatus: 200,
			wantBody: []string{`id="rso"`, `class="g"`}, notBody: []string{`<div jscontroller="EYwa3d"`, `AI Overview`}},
		{name: "no overview list", target: "/search?q=Facebook+Login", wantStatus: 200, notBody: []string{`<div jscontroller="EYwa3d"`}},
		{name: "real page", target: "/search?q=Why+are+frogs+green", wantStatus: 200,
			wantBody: []string{`How frogs became green — again, and again, and again`}},
		{name: "captcha redirects", target: "/search?q=captcha+test", wantStatus: 302,
			wantLocation: "/sorry/index?continue=http%3A%2F%2Fexample.com%2Fsearch%3Fq%3Dcaptcha%2Btest"},
		{name: "sorry page", target: "/sorry/index?continue=x", wantStatus: 429, wantBody: []string{`id="captcha-form"`}},
		{name: "empty query goes home", target: "/search?q=+&hl=de", wantStatus: 302, wantLocation: "/?gl=&hl=de"},
		{name: "home", target: "/?hl=de", wantStatus: 200, wantBody: []string{`action="/search"`, `aria-label="Suche"`}},
		{name: "health", target: "/healthz", wantStatus: 200, wantBody: []string{"ok"}},
		{name: "wrong method", method: http.MethodPost, target: "/search?q=x", wantStatus: 405},
		{name: "unknown path", target: "/nope", wantStatus: 404},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			method := tt.method
			if method == "" {
				method = http.MethodGet
			}
			rec := httptest.NewRecorder()
			srv.ServeHTTP(rec, httptest.NewRequest(method, tt.target, nil))
			if rec.Code != tt.wantStatus {
				t.Fatalf("status %d, want %d", rec.Code, tt.wantStatus)
			}
			if loc := rec.Header().Get("Location"); !strings.HasPrefix(loc, tt.wantLocation) {
				t.Errorf("Location %q, want prefix %q", loc, tt.wantLocation)
			}
			assertBody(t, rec.Body.String(), tt.wantBody, tt.notBody)
		})
	}
}

// TestRealPageServedAsIs checks that the captured page is served unchanged.
func TestRealPageServedAsIs(t *testing.T) {
	srv := serpfixture.New(serpfixture.Options{})
	got := get(t, srv, "/search?q=why+are+frogs+green&hl=de", http.StatusOK)
	want, err := serpfixture.FinalPage(serpfixture.RealPageQuery, "en")
	if err != nil {
		t.Fatal(err)
	}
	if got != want || len(got) < 2_000_000 {
		t.Errorf("served %d bytes, want the %d bytes of the captured page", len(got), len(want))
	}
}

// TestCapturedPageByName checks that "captured page NAME" serves that
// captured page unchanged, and 404 for a name that is none.
func TestCapturedPageByName(t *testing.T) {
	srv := serpfixture.New(serpfixture.Options{})
	for _, p := range captured.WebPages[:3] {
		got := get(t, srv, "/search?q="+url.QueryEscape(serpfixture.CapturedQuery+p.Name), http.StatusOK)
		if want := string(captured.Page(p.Name)); got != want || want == "" {
			t.Errorf("%s: served %d bytes, want its %d", p.Name, len(got), len(want))
		}
	}
	get(t, srv, "/search?q="+url.QueryEscape(serpfixture.CapturedQuery+"nothing.html"), http.StatusNotFound)
}

// TestVisits checks the visit counter: every results page and CAPTCHA
// redirect counts, per normalised query; consent redirects do not.
func TestVisits(t *testing.T) {
	srv := serpfixture.New(serpfixture.Options{})
	codes := make([]int, 20)
	var wg sync.WaitGroup
	for i := range codes {
		wg.Go(func() {
			rec := httptest.NewRecorder()
			srv.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/search?q=Why+is+the++sky+blue", nil))
			codes[i] = rec.Code
		})
	}
	wg.Wait()
	for i, code := range codes {
		if code != http.StatusOK {
			t.Errorf("concurrent request %d: status %d, want 200", i+1, code)
		}
	}
	get(t, srv, "/search?q=no+overview", http.StatusOK)
	get(t, srv, "/search?q=captcha", http.StatusFound)
	get(t, srv, "/search?q=why+are+frogs+green&final=1", http.StatusOK)
	tests := []struct {
		name  string
		query string
		want  int
	}{
		{name: "same query, other spelling", query: "why is the SKY blue", want: 20},
		{name: "without overview", query: "no overview", want: 1},
		{name: "captcha", query: "captcha", want: 1},
		{name: "real page", query: "why are frogs green", want: 1},
		{name: "never asked", query: "other", want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := srv.Visits(tt.query); got != tt.want {
				t.Errorf("Visits(%q) = %d, want %d", tt.query, got, tt.want)
			}
		})
	}
}

// TestVisitsEndpoint checks the JSON of /__visits.
func TestVisitsEndpoint(t *testing.T) {
	srv := serpfixture.New(serpfixture.Options{Consent: true})
	get(t, srv, "/consent?continue=%2F", http.StatusOK)
	for range 3 {
		getWith(t, srv, "/search?q=Frogs", http.StatusOK, consentCookie())
	}
	tests := []struct {
		name   string
		target string
		want   string
	}{
		{name: "one query", target: "/__visits?q=frogs", want: `{"consent":1,"query":"frogs","visits":3}`},
		{name: "unknown query", target: "/__visits?q=toads", want: `{"consent":1,"query":"toads","visits":0}`},
		{name: "all queries", target: "/__visits", want: `{"consent":1,"visits":{"frogs":3}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got, want any
			decode(t, get(t, srv, tt.target, http.StatusOK), &got)
			decode(t, tt.want, &want)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("body mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestConsentFlow walks through the consent interstitial as a browser
// would: redirect, page, reject-all form, cookie, back to the results.
func TestConsentFlow(t *testing.T) {
	tests := []struct {
		name      string
		hl        string
		wantTitle string
		wantForms []string // aria-labels of the buttons
		button    string
	}{
		{name: "English, reject", hl: "en", wantTitle: "Before you continue to Google", wantForms: []string{"Reject all", "Accept all"}, button: "Reject all"},
		{name: "German, accept", hl: "de", wantTitle: "Bevor Sie zu Google weitergehen", wantForms: []string{"Alle ablehnen", "Alle akzeptieren"}, button: "Alle akzeptieren"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fx := serpfixture.New(serpfixture.Options{Consent: true})
			ts := httptest.NewServer(fx)
			defer ts.Close()
			c := newClient(t)
			page := fetch(t, c, ts.URL+"/search?q=why+is+the+sky+blue&gl=DE&hl="+tt.hl)
			if page.doc.Find(serp.ConsentRejectForm).Length() == 0 || page.doc.Find("title").Text() != tt.wantTitle {
				t.Fatalf("ended on %s titled %q, want the consent page %q", page.url, page.doc.Find("title").Text(), tt.wantTitle)
			}
			assertConsentForms(t, page.doc, tt.wantForms, tt.hl, ts.URL+"/search?q=why+is+the+sky+blue&gl=DE&hl="+tt.hl)
			results := submit(t, c, page, tt.button)
			if !strings.Contains(results.html, `jscontroller="EYwa3d"`) || results.url != ts.URL+"/search?q=why+is+the+sky+blue&gl=DE&hl="+tt.hl {
				t.Errorf("after consent ended on %s, want the results page", results.url)
			}
			again := fetch(t, c, ts.URL+"/search?q=why+is+the+sky+blue")
			if again.doc.Find(serp.ConsentRejectForm).Length() > 0 {
				t.Error("consent page shown again despite the cookie")
			}
			if fx.ConsentShown() != 1 || fx.Visits("why is the sky blue") != 2 {
				t.Errorf("ConsentShown = %d, Visits = %d; want 1 and 2", fx.ConsentShown(), fx.Visits("why is the sky blue"))
			}
		})
	}
}

// TestSave checks the cookie and redirect of POST /save.
func TestSave(t *testing.T) {
	tests := []struct {
		name         string
		form         url.Values
		wantLocation string
	}{
		{name: "absolute continue on this host", form: url.Values{"set_eom": {"true"}, "continue": {"http://example.com/search?q=x"}}, wantLocation: "http://example.com/search?q=x"},
		{name: "path continue", form: url.Values{"set_sc": {"true"}, "set_eom": {"false"}, "continue": {"/search?q=x"}}, wantLocation: "/search?q=x"},
		{name: "foreign host refused", form: url.Values{"set_eom": {"true"}, "continue": {"https://evil.example/"}}, wantLocation: "/"},
		{name: "scheme-relative refused", form: url.Values{"set_eom": {"true"}, "continue": {"//evil.example/"}}, wantLocation: "/"},
		{name: "missing continue", form: url.Values{"set_eom": {"true"}}, wantLocation: "/"},
	}
	srv := serpfixture.New(serpfixture.Options{Consent: true})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodPost, "/save", strings.NewReader(tt.form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			rec := httptest.NewRecorder()
			srv.ServeHTTP(rec, req)
			if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != tt.wantLocation {
				t.Fatalf("got %d to %q, want 303 to %q", rec.Code, rec.Header().Get("Location"), tt.wantLocation)
			}
			cookies := rec.Result().Cookies()
			if len(cookies) != 1 || cookies[0].Name != serpfixture.ConsentCookie || cookies[0].Path != "/" || cookies[0].MaxAge < 365*24*3600 {
				t.Errorf("cookies %v, want one long-lived %s on /", cookies, serpfixture.ConsentCookie)
			}
		})
	}
}

// TestConsentOffByDefault checks that without Options.Consent /search
// serves results straight away.
func TestConsentOffByDefault(t *testing.T) {
	srv := serpfixture.New(serpfixture.Options{})
	body := get(t, srv, "/search?q=x", http.StatusOK)
	if parseHTML(t, body).Find(serp.ConsentRejectForm).Length() > 0 || srv.ConsentShown() != 0 {
		t.Error("consent page shown although Options.Consent is off")
	}
}

// page is a page a client ended on.
type page struct {
	url  string
	html string
	doc  *goquery.Document
}

// newClient returns an HTTP client with a cookie jar that follows redirects.
func newClient(tb testing.TB) *http.Client {
	tb.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		tb.Fatal(err)
	}
	return &http.Client{Jar: jar}
}

// fetch GETs u, following redirects, and parses the page it ends on.
func fetch(tb testing.TB, c *http.Client, u string) page {
	tb.Helper()
	resp, err := c.Get(u)
	if err != nil {
		tb.Fatalf("GET %s: %v", u, err)
	}
	return readPage(tb, resp)
}

// submit posts the form of the button whose aria-label is label, as a
// browser would, following redirects.
func submit(tb testing.TB, c *http.Client, p page, label string) page {
	tb.Helper()
	form := p.doc.Find(`button[aria-label="` + label + `"]`).Closest("form")
	if form.Length() == 0 {
		tb.Fatalf("no form with button %q", label)
	}
	values := url.Values{}
	form.Find(`input[type="hidden"]`).Each(func(_ int, in *goquery.Selection) {
		values.Add(in.AttrOr("name", ""), in.AttrOr("value", ""))
	})
	action, err := url.Parse(p.url)
	if err != nil {
		tb.Fatal(err)
	}
	resp, err := c.PostForm(action.ResolveReference(&url.URL{Path: form.AttrOr("action", "")}).String(), values)
	if err != nil {
		tb.Fatalf("submit %q: %v", label, err)
	}
	return readPage(tb, resp)
}

// readPage reads and parses a response's page.
func readPage(tb testing.TB, resp *http.Response) page {
	tb.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatal(err)
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(string(b)))
	if err != nil {
		tb.Fatal(err)
	}
	return page{url: resp.Request.URL.String(), html: string(b), doc: doc}
}

// assertConsentForms checks the two forms of the consent page.
func assertConsentForms(tb testing.TB, doc *goquery.Document, labels []string, hl, cont string) {
	tb.Helper()
	want := []map[string]string{
		{"set_eom": "true", "hl": hl, "gl": "DE", "continue": cont},
		{"set_sc": "true", "set_aps": "true", "set_eom": "false", "hl": hl, "gl": "DE", "continue": cont},
	}
	for i, label := range labels {
		form := doc.Find(`form[action="/save"][method="POST"]:has(button[aria-label="` + label + `"])`)
		got := map[string]string{}
		form.Find(`input[type="hidden"]`).Each(func(_ int, in *goquery.Selection) {
			if _, ok := want[i][in.AttrOr("name", "")]; ok {
				got[in.AttrOr("name", "")] = in.AttrOr("value", "")
			}
		})
		if diff := cmp.Diff(want[i], got); diff != "" {
			tb.Errorf("form %q mismatch (-want +got):\n%s", label, diff)
		}
	}
}

// get serves target and checks its status; it returns the body.
func get(tb testing.TB, h http.Handler, target string, status int) string {
	tb.Helper()
	return getWith(tb, h, target, status, nil)
}

// getWith is get with a cookie, if not nil.
func getWith(tb testing.TB, h http.Handler, target string, status int, c *http.Cookie) string {
	tb.Helper()
	req := httptest.NewRequest(http.MethodGet, target, nil)
	if c != nil {
		req.AddCookie(c)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != status {
		tb.Errorf("GET %s: status %d, want %d", target, rec.Code, status)
	}
	return rec.Body.String()
}

// consentCookie is a consent cookie as /save sets it.
func consentCookie() *http.Cookie {
	return &http.Cookie{Name: serpfixture.ConsentCookie, Value: "x"}
}

// decode decodes JSON s into v.
func decode(tb testing.TB, s string, v any) {
	tb.Helper()
	if err := json.Unmarshal([]byte(s), v); err != nil {
		tb.Fatalf("decode %q: %v", s, err)
	}
}

// assertBody checks that body holds every string of want and none of not.
func assertBody(tb testing.TB, body string, want, not []string) {
	tb.Helper()
	for _, s := range want {
		if !strings.Contains(body, s) {
			tb.Errorf("body lacks %q", s)
		}
	}
	for _, s := range not {
		if strings.Contains(body, s) {
			tb.Errorf("body holds %q", s)
		}
	}
}
