package serpfixture_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kisa-dev/kisa/serpfixture"
	"github.com/kisa-dev/kisa/worker/serp"
)

// TestVariants checks that a query's answer changes on request, as the
// extractor reads it: a variant's own overview, none, the CAPTCHA, and
// back to the rules.
func TestVariants(t *testing.T) {
	s := serpfixture.New(serpfixture.Options{})
	const page = "/search?q=Trail+Shoes&hl=en&gl=us&final=1"
	put := func(body string, status int) {
		t.Helper()
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, httptest.NewRequest(http.MethodPut, "/__variants", strings.NewReader(body)))
		if rec.Code != status {
			t.Fatalf("PUT /__variants %s: %d %s, want %d", body, rec.Code, rec.Body, status)
		}
	}
	extract := func() []string {
		t.Helper()
		ov, err := serp.Extract(get(t, s, page, 200))
		if err != nil {
			t.Fatal(err)
		}
		if !ov.HasOverview {
			return nil
		}
		out := []string{ov.Text}
		for _, src := range ov.Sources {
			out = append(out, src.URL)
		}
		return out
	}
	put(`{"query":"trail  shoes","variant":{"kind":"overview","paragraphs":["Grippy soles matter."],
		"links":[{"title":"Shoes","url":"https://shop.example.com/trail","site":"Shop"},{"title":"Guide","url":"https://guide.example.org/","site":"Guide"}]}}`, 204)
	if diff := cmp.Diff([]string{"Grippy soles matter.", "https://shop.example.com/trail", "https://guide.example.org/"}, extract()); diff != "" {
		t.Errorf("overview variant (-want +got):\n%s", diff)
	}
	put(`{"query":"trail shoes","variant":{"kind":"none"}}`, 204)
	if got := extract(); got != nil {
		t.Errorf("none variant still has an overview: %v", got)
	}
	put(`{"query":"trail shoes","variant":{"kind":"captcha"}}`, 204)
	get(t, s, page, http.StatusFound)
	put(`{"query":"trail shoes","variant":{"kind":""}}`, 204)
	if got := extract(); len(got) < 2 || !strings.Contains(got[0], "trail shoes") {
		t.Errorf("rules not restored: %v", got)
	}
	put(`{"query":"x","variant":{"kind":"overview"}}`, 400)
	put(`{"query":"x","variant":{"kind":"sometimes"}}`, 400)
}
