package serp_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/serpfixture"
	"github.com/kisa-dev/kisa/serpfixture/captured"
	"github.com/kisa-dev/kisa/worker/serp"
)

// update rewrites the golden files and the fixture pages in testdata/.
var update = flag.Bool("update", false, "rewrite testdata/*.golden.json and the fixture pages")

// fixturePage is a page of the fixture search server kept in testdata/:
// the final (expanded) state of a results page, or another of its pages.
type fixturePage struct {
	file   string // in testdata/
	target string // request to the fixture server
}

// fixturePages are the fixture server's pages under golden test.
var fixturePages = []fixturePage{
	{"fixture-en-why-is-the-sky-blue.html", "/search?q=why+is+the+sky+blue&hl=en&gl=us&final=1"},
	{"fixture-de-warum-ist-der-himmel-blau.html", "/search?q=warum+ist+der+himmel+blau&hl=de&gl=de&final=1"},
	{"fixture-en-best-hiking-boots.html", "/search?q=best+hiking+boots&hl=en&gl=us&final=1"},
	{"fixture-de-beste-wanderschuhe.html", "/search?q=beste+wanderschuhe&hl=de&gl=de&final=1"},
	{"fixture-en-no-overview.html", "/search?q=facebook+login&hl=en&gl=us&final=1"},
	{"fixture-de-consent.html", "/consent?continue=http%3A%2F%2F127.0.0.1%2Fsearch%3Fq%3Dx&gl=DE&hl=de"},
}

// TestFixturePagesCurrent checks that the fixture pages in testdata/ are
// what the fixture server serves now (-update rewrites them), without the
// script that checks a browser's presence.
func TestFixturePagesCurrent(t *testing.T) {
	checkFixturePages(t, serpfixture.New(serpfixture.Options{AllowAutomated: true}), fixturePages)
}

// checkFixturePages checks that each of pages in testdata/ is what srv
// serves now for its request (-update rewrites them).
func checkFixturePages(t *testing.T, srv http.Handler, pages []fixturePage) {
	for _, fp := range pages {
		t.Run(fp.file, func(t *testing.T) {
			want := serve(t, srv, fp.target)
			path := filepath.Join("testdata", fp.file)
			if *update {
				writeFile(t, path, want)
			}
			if got := readFile(t, path); got != want {
				t.Errorf("%s is stale: run go test ./worker/serp -update", path)
			}
		})
	}
}

// TestExtractGolden extracts every page of testdata/ and compares the JSON
// with its golden file (-update rewrites them).
func TestExtractGolden(t *testing.T) {
	pages := append([]string{"sorry-captcha.html"}, capturedPages...)
	for _, fp := range fixturePages {
		pages = append(pages, fp.file)
	}
	for _, name := range pages {
		t.Run(name, func(t *testing.T) {
			ov := extract(t, readPage(t, name))
			assertNoInterface(t, ov)
			assertParagraphsMatchText(t, ov)
			got := toJSON(t, ov)
			golden := filepath.Join("testdata", strings.TrimSuffix(name, ".html")+".golden.json")
			if *update {
				writeFile(t, golden, got)
			}
			if diff := cmp.Diff(readFile(t, golden), got); diff != "" {
				t.Errorf("Extract(%s) mismatch (-want +got):\n%s", name, diff)
			}
		})
	}
}

// serve returns the body of target as the fixture server answers it.
func serve(tb testing.TB, h http.Handler, target string) string {
	tb.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, target, nil))
	if rec.Code != http.StatusOK {
		tb.Fatalf("GET %s: status %d", target, rec.Code)
	}
	return rec.Body.String()
}

// extract runs serp.Extract and fails the test on an error.
func extract(tb testing.TB, page string) kisa.Overview {
	tb.Helper()
	ov, err := serp.Extract(page)
	if err != nil {
		tb.Fatalf("Extract: %v", err)
	}
	return ov
}

// toJSON encodes v as indented JSON, as the golden files hold it.
func toJSON(tb testing.TB, v any) string {
	tb.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		tb.Fatalf("encode: %v", err)
	}
	return buf.String()
}

// capturedPages are the real captured results pages under golden test,
// one or more per generation (2026, 2025).
var capturedPages = []string{captured.FrogsPage, captured.MobileAppPage}

// readPage returns the page name: a real captured page of
// serpfixture/captured, else testdata/name.
func readPage(tb testing.TB, name string) string {
	tb.Helper()
	if page := captured.Page(name); page != nil {
		return string(page)
	}
	return readFile(tb, filepath.Join("testdata", name))
}

// readFile returns the content of path.
func readFile(tb testing.TB, path string) string {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatalf("read %s: %v (run go test ./worker/serp -update to create it)", path, err)
	}
	return string(b)
}

// writeFile writes content to path.
func writeFile(tb testing.TB, path, content string) {
	tb.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		tb.Fatalf("write %s: %v", path, err)
	}
}
