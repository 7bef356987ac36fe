package serpfixture_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"

	"github.com/kisa-dev/kisa/serpfixture"
	"github.com/kisa-dev/kisa/worker/serp"
)

// streamCases are the overview pages whose streaming is checked.
var streamCases = []struct {
	name, query, hl string
}{
	{name: "English", query: "why is the sky blue", hl: "en"},
	{name: "German", query: "warum ist der himmel blau", hl: "de"},
	{name: "stand-in", query: "Best hiking boots", hl: "en"},
}

// TestStreamMatchesFinal checks that the chunks the page's script streams
// in are exactly the markup of the final page, so that a browser's DOM
// after streaming and FinalPage extract alike.
func TestStreamMatchesFinal(t *testing.T) {
	srv := serpfixture.New(serpfixture.Options{})
	for _, tt := range streamCases {
		t.Run(tt.name, func(t *testing.T) {
			v := url.Values{"q": {tt.query}, "hl": {tt.hl}}
			stream := streamOf(t, get(t, srv, "/search?"+v.Encode(), http.StatusOK))
			final, err := serpfixture.FinalPage(tt.query, tt.hl)
			if err != nil {
				t.Fatal(err)
			}
			doc := parseHTML(t, final)
			for _, part := range []struct{ to, sel string }{{"answer", `[data-xid="VpUvz"]`}, {"aside", ".aio-aside"}} {
				want, _ := doc.Find(part.sel).Html()
				if diff := cmp.Diff(want, rerender(t, stream.joined(part.to))); diff != "" {
					t.Errorf("streamed %s differs from the final page (-final +stream):\n%s", part.to, diff)
				}
			}
			if !strings.Contains(stream.Control, `aria-expanded="false" aria-controls="m-x-content"`) {
				t.Errorf("streamed control %q is not collapsed", stream.Control)
			}
		})
	}
}

// TestBrowserStreamsAndExpands loads the streaming pages in Chromium: the
// overview is pending at first, then present and collapsed; clicking the
// control expands it, and the DOM then extracts exactly like FinalPage.
func TestBrowserStreamsAndExpands(t *testing.T) {
	ts := httptest.NewServer(serpfixture.New(serpfixture.Options{OverviewDelay: 2 * time.Second, AllowAutomated: true}))
	defer ts.Close()
	browser := newBrowser(t)
	for _, tt := range streamCases {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := chromedp.NewContext(browser)
			defer cancel()
			ctx, cancel = context.WithTimeout(ctx, 30*time.Second)
			defer cancel()
			v := url.Values{"q": {tt.query}, "hl": {tt.hl}, "gl": {"us"}}
			var early, collapsed, expanded string
			err := chromedp.Run(ctx,
				chromedp.Navigate(ts.URL+"/search?"+v.Encode()),
				chromedp.Evaluate(`document.documentElement.outerHTML`, &early),
				chromedp.WaitVisible(serp.ShowMoreCollapsed, chromedp.ByQuery),
				chromedp.Evaluate(`document.documentElement.outerHTML`, &collapsed),
				chromedp.Click(serp.ShowMoreCollapsed, chromedp.ByQuery),
				chromedp.WaitReady(`[aria-controls="m-x-content"][aria-expanded="true"]`, chromedp.ByQuery),
				chromedp.Evaluate(`document.documentElement.outerHTML`, &expanded),
			)
			if err != nil {
				t.Fatalf("browse: %v", err)
			}
			assertState(t, "on load", early, false, false, true)
			assertState(t, "streamed", collapsed, true, true, false)
			assertState(t, "expanded", expanded, true, false, false)
			final, err := serpfixture.FinalPage(tt.query, tt.hl)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(extractPage(t, final), extractPage(t, expanded)); diff != "" {
				t.Errorf("browser DOM extracts differently from FinalPage (-final +browser):\n%s", diff)
			}
		})
	}
}

// stream is the data the results page's script streams in.
type stream struct {
	Delay  int64 `json:"delay"`
	Chunks []struct {
		To   string `json:"to"`
		HTML string `json:"html"`
	} `json:"chunks"`
	Control  string   `json:"control"`
	Schedule schedule `json:"schedule"`
}

// joined returns the markup of the chunks that go to target.
func (s stream) joined(target string) string {
	var sb strings.Builder
	for _, c := range s.Chunks {
		if c.To == target {
			sb.WriteString(c.HTML)
		}
	}
	return sb.String()
}

// streamOf reads the stream data out of a streaming results page.
func streamOf(tb testing.TB, page string) stream {
	tb.Helper()
	const start = "window.aioStream = "
	i := strings.Index(page, start)
	j := strings.Index(page[i+1:], ";</script>")
	if i < 0 || j < 0 {
		tb.Fatal("page has no stream data")
	}
	var s stream
	if err := json.Unmarshal([]byte(page[i+len(start):i+1+j]), &s); err != nil {
		tb.Fatalf("decode stream data: %v", err)
	}
	if len(s.Chunks) < 3 {
		tb.Errorf("overview streams in %d chunks, want several", len(s.Chunks))
	}
	return s
}

// rerender parses markup as the content of a div and renders it again, so
// that it compares with goquery's rendering of the final page.
func rerender(tb testing.TB, markup string) string {
	tb.Helper()
	h, err := parseHTML(tb, `<div id="x">`+markup+`</div>`).Find("#x").Html()
	if err != nil {
		tb.Fatal(err)
	}
	return h
}

// parseHTML parses a page.
func parseHTML(tb testing.TB, page string) *goquery.Document {
	tb.Helper()
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(page))
	if err != nil {
		tb.Fatal(err)
	}
	return doc
}

// assertState checks what the extractor and the browser's selectors read
// from a page at one moment: an overview present, its show-more control
// collapsed, or its block there while it has no answer yet (pending).
func assertState(tb testing.TB, when, page string, present, collapsed, pending bool) {
	tb.Helper()
	ov, err := serp.Extract(page)
	if err != nil {
		tb.Fatalf("%s: Extract: %v", when, err)
	}
	doc := parseHTML(tb, page)
	p, c := ov.HasOverview, doc.Find(serp.ShowMoreCollapsed).Length() > 0
	pend := !p && doc.Find(serp.OverviewContainer).Length() > 0
	if p != present || c != collapsed || pend != pending {
		tb.Errorf("%s: present, collapsed, pending = %v, %v, %v; want %v, %v, %v",
			when, p, c, pend, present, collapsed, pending)
	}
}

// extractPage extracts a page's overview, failing the test on an error.
func extractPage(tb testing.TB, page string) any {
	tb.Helper()
	ov, err := serp.Extract(page)
	if err != nil {
		tb.Fatal(err)
	}
	return ov
}

// newBrowser starts a headless Chromium (KISA_CHROME_PATH, or chromium on
// PATH) that resolves no host but the loopback, and stops it when the
// test ends. A missing Chromium fails the test with how to install it.
func newBrowser(tb testing.TB) context.Context {
	tb.Helper()
	path := os.Getenv("KISA_CHROME_PATH")
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if path != "" {
			break
		}
		path, _ = exec.LookPath(name)
	}
	if path == "" {
		tb.Fatal("Chromium is needed: `apt-get install chromium`, or set KISA_CHROME_PATH")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path), chromedp.NoSandbox, chromedp.WindowSize(1280, 900),
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"))
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(alloc)
	tb.Cleanup(func() { cancel(); cancelAlloc() })
	if err := chromedp.Run(ctx); err != nil {
		tb.Fatalf("start Chromium %s: %v", path, err)
	}
	return ctx
}
