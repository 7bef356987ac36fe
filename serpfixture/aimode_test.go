package serpfixture_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/serpfixture"
	"github.com/kisa-dev/kisa/worker/serp"
)

// TestAIModePages checks the AI Mode pages as served: the start page, the
// finished answer with follow-ups, the notice for France, and the turn
// endpoint.
func TestAIModePages(t *testing.T) {
	srv := serpfixture.New(serpfixture.Options{})
	start := get(t, srv, "/search?udm=50&hl=en&gl=us", http.StatusOK)
	if doc := parseHTML(t, start); doc.Find(serp.AIModeFollowUp).Length() != 1 || doc.Find(serp.AIModeTurn).Length() != 0 {
		t.Errorf("start page: want the prompt box and no turn")
	}
	v := url.Values{"udm": {"50"}, "q": {"why is the sky blue"}, "hl": {"en"}, "gl": {"us"}, "final": {"1"}, "fu": {"what about sunsets", "and on mars"}}
	served := get(t, srv, "/search?"+v.Encode(), http.StatusOK)
	final, err := serpfixture.FinalAIModePage("why is the sky blue", "en", "us", "what about sunsets", "and on mars")
	if err != nil {
		t.Fatal(err)
	}
	if served != final {
		t.Error("?final=1 differs from FinalAIModePage")
	}
	res, err := serp.ExtractAIMode(final)
	if err != nil {
		t.Fatal(err)
	}
	if !res.HasAnswer || !res.Complete || res.Query != "why is the sky blue" || len(res.Turns) != 2 || res.Turns[1].Query != "and on mars" {
		t.Errorf("final page reads as hasAnswer %v, complete %v, query %q, %d turns", res.HasAnswer, res.Complete, res.Query, len(res.Turns))
	}
	if len(res.Sources) == 0 || len(res.Citations) == 0 || len(res.RelatedLinks) != 1 {
		t.Errorf("answer has %d sources, %d citations, %d related links; want some, some, 1", len(res.Sources), len(res.Citations), len(res.RelatedLinks))
	}
	if srv.Visits("why is the sky blue") != 1 {
		t.Errorf("visits = %d, want 1", srv.Visits("why is the sky blue"))
	}
	for _, hl := range []string{"en", "fr"} {
		fr := get(t, srv, "/search?udm=50&q=pourquoi&gl=FR&hl="+hl, http.StatusOK)
		res, err := serp.ExtractAIMode(fr)
		if err != nil || res.HasAnswer || res.Reason != kisa.ReasonNotAvailable {
			t.Errorf("gl=FR hl=%s: hasAnswer %v reason %q err %v; want the notice", hl, res.HasAnswer, res.Reason, err)
		}
	}
	var turn struct {
		Shell  string `json:"shell"`
		Chunks []any  `json:"chunks"`
	}
	if err := json.Unmarshal([]byte(get(t, srv, "/aimode/turn?q=follow&hl=en&n=2", http.StatusOK)), &turn); err != nil ||
		!strings.Contains(turn.Shell, `aria-busy="true"`) || len(turn.Chunks) < 3 {
		t.Errorf("turn endpoint: %v, shell %.80q, %d chunks", err, turn.Shell, len(turn.Chunks))
	}
}

// TestAIModeEdgeCases checks the AI Mode pages of the worker's edge
// cases: a stream that stops (incomplete) and unknown markup.
func TestAIModeEdgeCases(t *testing.T) {
	stalled, err := serpfixture.FinalAIModePage(serpfixture.StalledQuery, "en", "us")
	if err != nil {
		t.Fatal(err)
	}
	if res, err := serp.ExtractAIMode(stalled); err != nil || !res.HasAnswer || res.Complete {
		t.Errorf("stalled: hasAnswer %v complete %v err %v; want a partial answer", res.HasAnswer, res.Complete, err)
	}
	unknown, err := serpfixture.FinalAIModePage(serpfixture.UnknownQuery, "en", "us")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := serp.ExtractAIMode(unknown); !errors.Is(err, kisa.Unrecognised) {
		t.Errorf("unknown markup: err = %v, want unrecognised", err)
	}
}

// TestBrowserAIMode asks a question and a follow-up on the start page in
// Chromium, as the worker does: the answers stream in, and the DOM then
// extracts exactly like FinalAIModePage.
func TestBrowserAIMode(t *testing.T) {
	ts := httptest.NewServer(serpfixture.New(serpfixture.Options{OverviewDelay: time.Second, AllowAutomated: true}))
	defer ts.Close()
	ctx, cancel := chromedp.NewContext(newBrowser(t))
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	done := func(turns int) chromedp.Action {
		return until(`document.querySelectorAll('` + serp.AIModeTurn + `').length === ` + strconv.Itoa(turns) +
			` && document.querySelector('` + serp.AIModeStreaming + `') === null`)
	}
	var busy bool
	var page string
	err := chromedp.Run(ctx,
		chromedp.Navigate(ts.URL+"/search?udm=50&hl=en&gl=us"),
		chromedp.SendKeys(serp.AIModeFollowUp, "Best hiking boots\r", chromedp.ByQuery),
		until(`document.querySelector('`+serp.AIModeStreaming+`') !== null`),
		chromedp.ActionFunc(func(context.Context) error { busy = true; return nil }),
		done(1),
		chromedp.SendKeys(serp.AIModeFollowUp, "what about winter\r", chromedp.ByQuery),
		done(2),
		chromedp.Evaluate(`document.documentElement.outerHTML`, &page),
	)
	if err != nil {
		t.Fatalf("browse: %v", err)
	}
	if !busy {
		t.Error("the answer was whole at once, want it streaming")
	}
	final, err := serpfixture.FinalAIModePage("Best hiking boots", "en", "us", "what about winter")
	if err != nil {
		t.Fatal(err)
	}
	want, err := serp.ExtractAIMode(final)
	if err != nil {
		t.Fatal(err)
	}
	got, err := serp.ExtractAIMode(page)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("browser DOM extracts differently from FinalAIModePage (-final +browser):\n%s", diff)
	}
}

// until reads expr in the page every 50 ms until it is true: a fresh
// evaluation each time, so that it holds across a navigation (chromedp's
// Poll stays in the document it started in).
func until(expr string) chromedp.Action {
	return chromedp.ActionFunc(func(ctx context.Context) error {
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			var ok bool
			if err := chromedp.Evaluate(expr, &ok).Do(ctx); err == nil && ok {
				return nil
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("wait for %s: %w", expr, ctx.Err())
			case <-tick.C:
			}
		}
	})
}
