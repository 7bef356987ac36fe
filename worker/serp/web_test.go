package serp_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/serpfixture"
	"github.com/kisa-dev/kisa/worker/serp"
)

// TestExtractWebFixturePhone reads the fixture's results page as a phone
// gets it (titles are div[role=heading] in the organic list's wrapper,
// beside "People also ask" and videos) and finds the desktop page's
// organic results, in the same order.
func TestExtractWebFixturePhone(t *testing.T) {
	srv := serpfixture.New(serpfixture.Options{AllowAutomated: true})
	const target = "/search?q=best+hiking+boots&hl=en&gl=us&final=1"
	phone := servePhone(t, srv, target)
	if strings.Contains(phone, `<h3 class="LC20lb">best hiking boots - Wikipedia`) || !strings.Contains(phone, `role="heading"><div role="link"><span>best hiking boots - Wikipedia`) {
		t.Fatal("the phone's page does not carry the phone's titles")
	}
	want, err := serp.ExtractWeb(serve(t, srv, target))
	if err != nil {
		t.Fatal(err)
	}
	got, err := serp.ExtractWeb(phone)
	if err != nil {
		t.Fatal(err)
	}
	if len(want.Organic) != 5 {
		t.Fatalf("desktop page: %d organic results, want 5", len(want.Organic))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("phone's reading differs from the desktop's (-desktop +phone):\n%s", diff)
	}
}

// servePhone returns the page srv serves a phone for target.
func servePhone(tb testing.TB, srv http.Handler, target string) string {
	tb.Helper()
	req := httptest.NewRequest(http.MethodGet, target, nil)
	req.Header.Set("Sec-CH-UA-Mobile", "?1")
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		tb.Fatalf("GET %s: status %d", target, rec.Code)
	}
	return rec.Body.String()
}

// TestExtractWebByBlock checks that a result is decided by its own block,
// on the layouts that the rule of wrappers read as no results: the
// organic list in one wrapper with modules that have headings of their
// own, a knowledge panel's name at the head of that wrapper, the
// featured snippet's label; and that a page from which no organic result
// is read is unrecognised unless it is the engine's notice that the query
// matched nothing, which is an empty list.
func TestExtractWebByBlock(t *testing.T) {
	const (
		one   = `<div class="r"><a href="https://one.example/"><div role="heading" aria-level="3">One</div></a><div class="VwiC3b">First.</div></div>`
		two   = `<div class="r"><a href="https://two.example/"><h3>Two</h3></a><div data-sncf="1">Second.</div></div>`
		aio   = `<div><div role="heading" aria-level="2">AI Overview</div><div>An answer long enough to be more than a heading, about the query.</div></div>`
		paa   = `<div><div role="heading" aria-level="2">People also ask</div><div role="button">What is it, and why does it matter so much?</div></div>`
		video = `<div><div role="heading" aria-level="2">Videos</div><div><a href="https://v.example/1"><div role="heading" aria-level="3">V1</div></a></div><div><a href="https://v.example/2"><h3>V2</h3></a></div></div>`
	)
	organic := []kisa.OrganicResult{
		{Position: 1, Title: "One", URL: "https://one.example/", Description: "First."},
		{Position: 2, Title: "Two", URL: "https://two.example/", Description: "Second."},
	}
	tests := []struct {
		name string
		rso  string
		want []kisa.OrganicResult
		err  error
	}{
		{name: "one wrapper with the overview, People also ask and videos", rso: `<div>` + aio + one + paa + video + two + `</div>`, want: organic},
		{name: "a module's heading standing alone before its items", rso: `<div><div role="heading" aria-level="2">Top stories</div>` +
			`<div><a href="https://news.example/1"><h3>N1</h3></a></div><div><a href="https://news.example/2"><h3>N2</h3></a></div></div>` + one + two,
			want: organic},
		{name: "a local pack's heading beside its note in a bubble", rso: `<div><div><div><span role="heading" aria-level="2">Addresses</span>` +
			`<g-bubble><span role="button">i</span><div class="nnFGuf">Reviews are not verified by the engine, but it looks for and removes false content.</div></g-bubble></div></div>` +
			`<div><a href="https://place.example/1"><div role="heading" aria-level="3">P1</div></a></div><div><a href="https://place.example/2"><div role="heading" aria-level="3">P2</div></a></div></div>` + one + two,
			want: organic},
		{name: "a knowledge panel's name at the head of the wrapper", rso: `<div><div><div role="heading" aria-level="2" data-attrid="title">Entity</div></div>` + one + two + `</div>`,
			want: organic},
		{name: "the featured snippet's label", rso: `<div><div><div role="heading" aria-level="2">Featured snippet</div></div><div><div data-attrid="wa:/description">The answer.</div>` +
			`<h3><a href="https://fs.example/">FS</a></h3></div></div>` + one,
			want: []kisa.OrganicResult{{Position: 1, Title: "FS", URL: "https://fs.example/", Description: "The answer."}, {Position: 2, Title: "One", URL: "https://one.example/", Description: "First."}}},
		{name: "titles of which none is organic", rso: video, want: []kisa.OrganicResult{}, err: kisa.Unrecognised},
		{name: "no results", rso: `<p role="heading" aria-level="3">Ihre Suche - <em>x</em> - ergab keine Treffer.</p>`, want: []kisa.OrganicResult{}},
		{name: "results in a markup it does not know", rso: `<div><a href="https://one.example/"><span class="title">One</span></a></div>`,
			want: []kisa.OrganicResult{}, err: kisa.Unrecognised},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := serp.ExtractWeb(`<html><body><div id="search"><div id="rso">` + tt.rso + `</div></div></body></html>`)
			if !errors.Is(err, tt.err) || (tt.err == nil && err != nil) {
				t.Fatalf("err = %v, want %v", err, tt.err)
			}
			if diff := cmp.Diff(tt.want, res.Organic); diff != "" {
				t.Errorf("organic mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
