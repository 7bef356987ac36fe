package serp_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/worker/serp"
)

// gaveUp returns the real April 2026 phone page as the engine shows it
// when it gives up on the answer: the answer's part ([data-ve-view])
// removed and the notice of jsname notice shown (its inline display:none
// removed; "lGsj1": "En AI-översikt är inte tillgänglig för den här
// sökningen", "L1sC6e": "Det går inte att generera en AI-översikt just
// nu."); an empty notice leaves both hidden.
func gaveUp(tb testing.TB, notice string) string {
	tb.Helper()
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(readPage(tb, armhangPage)))
	if err != nil {
		tb.Fatal(err)
	}
	doc.Find(`[data-ve-view]`).Remove()
	if notice != "" {
		doc.Find(`[jsname="` + notice + `"]`).RemoveAttr("style")
	}
	page, err := doc.Html()
	if err != nil {
		tb.Fatal(err)
	}
	return page
}

// TestExtractShownNotice reads a block that shows the engine's Swedish
// notices as an overview that is not there, finished, not as unknown
// markup; the same block with its notices hidden and no answer is
// unknown markup (its query line is text no generation reads).
func TestExtractShownNotice(t *testing.T) {
	for _, notice := range []string{"lGsj1", "L1sC6e"} {
		ov, err := serp.Extract(gaveUp(t, notice))
		if err != nil || ov.HasOverview || !ov.Complete {
			t.Errorf("notice %s shown: overview %v complete %v, err %v; want none, complete", notice, ov.HasOverview, ov.Complete, err)
		}
	}
	if _, err := serp.Extract(gaveUp(t, "")); !errors.Is(err, kisa.Unrecognised) {
		t.Errorf("no answer, notices hidden: err %v, want Unrecognised", err)
	}
}

// TestPageNoticeInChromium asks page.js, in Chromium, for the overview's
// state on the real April 2026 phone page: with its answer it is no
// notice; with the answer gone and a Swedish notice shown it is the
// notice that ends the wait (serp.OverviewState.Notice), though the
// block's text also holds the query line the page hides by its style
// sheet; with both notices hidden it is none.
func TestPageNoticeInChromium(t *testing.T) {
	pages := map[string]string{"/answer": readPage(t, armhangPage), "/notice": gaveUp(t, "lGsj1"),
		"/cannot": gaveUp(t, "L1sC6e"), "/hidden": gaveUp(t, "")}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(pages[r.URL.Path]))
	}))
	defer srv.Close()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(os.Getenv("KISA_CHROME_PATH")),
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"))
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(alloc)
	defer cancel()
	ctx, cancelTime := context.WithTimeout(ctx, 2*time.Minute)
	defer cancelTime()
	for path, want := range map[string]bool{"/answer": false, "/notice": true, "/cannot": true, "/hidden": false} {
		var raw json.RawMessage
		script := serp.PageScript(serp.AskOverviewChange, serp.OverviewChange{WaitMs: 0})
		err := chromedp.Run(ctx, chromedp.Navigate(srv.URL+path),
			chromedp.Evaluate(script, &raw, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }))
		if err != nil {
			t.Fatalf("%s: %v (Chromium is needed: `apt-get install chromium`, or set KISA_CHROME_PATH)", path, err)
		}
		var st serp.OverviewState
		if err := json.Unmarshal(raw, &st); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if st.Notice != want {
			t.Errorf("%s: state %+v, want notice %v", path, st, want)
		}
	}
}
