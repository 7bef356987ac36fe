package browser

import (
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/serpfixture"
	"github.com/kisa-dev/kisa/worker/serp"
)

// slowStream is a stream of the fixture search engine as slow as live
// answers get: a "Generating" phase of 4 s with no answer, then chunks in
// bursts with silences of 3 s between them, the end 12 s after the page's
// script started.
var slowStream = url.Values{serpfixture.ParamDelay: {"12s"}, serpfixture.ParamGenerating: {"4s"}, serpfixture.ParamPause: {"3s"}}

// fixtureURL is the fixture's page at path for query q (none when
// empty) in English and the US, with the stream parameters of stream.
func fixtureURL(srv *httptest.Server, path, q string, stream url.Values, extra ...string) string {
	v := url.Values{"hl": {"en"}, "gl": {"us"}}
	if q != "" {
		v.Set("q", q)
	}
	for k, vs := range stream {
		v[k] = vs
	}
	for i := 0; i+1 < len(extra); i += 2 {
		v.Set(extra[i], extra[i+1])
	}
	return srv.URL + path + "?" + v.Encode()
}

// readOverview extracts the overview of a visit as the worker answers it:
// complete only when the visit settled (worker/surfaces.go).
func readOverview(tb testing.TB, res VisitResult) kisa.Overview {
	tb.Helper()
	ov, err := serp.Extract(res.HTML)
	if err != nil {
		tb.Fatalf("Extract: %v", err)
	}
	ov.Complete = ov.Complete && res.Settled
	return ov
}

// finalOverview is the overview of the fixture's finished page for query.
func finalOverview(tb testing.TB, query string) kisa.Overview {
	tb.Helper()
	page, err := serpfixture.FinalPage(query, "en")
	if err != nil {
		tb.Fatal(err)
	}
	ov, err := serp.Extract(page)
	if err != nil {
		tb.Fatal(err)
	}
	return ov
}

// TestVisitSlowOverview visits overviews that stream slowly (a long
// "Generating" phase, silences of seconds between chunks): each is read
// whole and complete, exactly as the finished page reads, and a page
// without overview still ends after OverviewAppear. OverviewWait is far
// beyond the visit's deadline: a visit that waited for it, instead of the
// page's end, would fail.
func TestVisitSlowOverview(t *testing.T) {
	srv := httptest.NewServer(serpfixture.New(serpfixture.Options{Logger: testLogger(t)}))
	t.Cleanup(srv.Close)
	p := newTestPool(t, func(c *Config) {
		c.Tabs, c.OverviewWait, c.OverviewAppear, c.VisitTimeout = 1, 3*time.Minute, time.Second, time.Minute
	})
	tests := []struct {
		name, query string
		stream      url.Values
	}{
		{name: "12 s with a Generating phase of 4 s and silences of 3 s", query: "why is the sky blue", stream: slowStream},
		{name: "8 s as the benchmark streams it", query: "best hiking boots", stream: url.Values{serpfixture.ParamDelay: {"8s"}}},
		{name: "no overview", query: "weather", stream: slowStream},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := p.Visit(t.Context(), VisitRequest{URL: fixtureURL(srv, "/search", tt.query, tt.stream)})
			if err != nil {
				t.Fatalf("Visit: %v", err)
			}
			got, want := readOverview(t, res), finalOverview(t, tt.query)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("visit reads differently from the finished page (-final +visit):\n%s", diff)
			}
			if !got.Complete || !res.Settled {
				t.Errorf("complete %v, settled %v; want both", got.Complete, res.Settled)
			}
		})
	}
}

// TestVisitUnfinishedOverview checks that an overview whose page never
// says it is finished is read as it stands, complete false, once
// OverviewWait has passed: one stopped half-way, and one whose
// "Generating" phase outlasts the wait (no answer yet, which is not a
// complete "no overview").
func TestVisitUnfinishedOverview(t *testing.T) {
	srv := httptest.NewServer(serpfixture.New(serpfixture.Options{Logger: testLogger(t)}))
	t.Cleanup(srv.Close)
	p := newTestPool(t, func(c *Config) { c.Tabs, c.OverviewWait, c.OverviewAppear = 1, 3*time.Second, time.Second })
	stalled := finalOverview(t, serpfixture.StalledQuery)
	tests := []struct {
		name, query string
		stream      url.Values
		want        kisa.Overview // Complete false
	}{
		{name: "stopped half-way", query: serpfixture.StalledQuery, stream: url.Values{serpfixture.ParamDelay: {"1s"}}, want: stalled},
		{name: "still generating", query: "why is the sky blue", stream: url.Values{serpfixture.ParamDelay: {"30s"}, serpfixture.ParamGenerating: {"20s"}},
			want: kisa.Overview{Citations: []kisa.Citation{}, Paragraphs: []kisa.Paragraph{}, Sources: []kisa.Source{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := p.Visit(t.Context(), VisitRequest{URL: fixtureURL(srv, "/search", tt.query, tt.stream)})
			if err != nil {
				t.Fatalf("Visit: %v", err)
			}
			if res.Settled {
				t.Error("settled, want the wait to have ended unfinished")
			}
			if diff := cmp.Diff(tt.want, readOverview(t, res)); diff != "" {
				t.Errorf("overview (-want +visit):\n%s", diff)
			}
		})
	}
}

// TestVisitSlowConversation asks AI Mode a question and a follow-up whose
// answers each show "Generating..." for 3 s and then stream with silences
// of 2.5 s: both are read whole, exactly as the finished page reads. As in
// TestVisitSlowOverview, OverviewWait is beyond the visit's deadline.
func TestVisitSlowConversation(t *testing.T) {
	srv := httptest.NewServer(serpfixture.New(serpfixture.Options{Logger: testLogger(t)}))
	t.Cleanup(srv.Close)
	p := newTestPool(t, func(c *Config) { c.Tabs, c.OverviewWait, c.VisitTimeout = 1, 3*time.Minute, time.Minute })
	stream := url.Values{serpfixture.ParamDelay: {"8s"}, serpfixture.ParamGenerating: {"3s"}, serpfixture.ParamPause: {"2500ms"}}
	prompts := []string{"why is the sky blue", "what about sunsets"}
	res, err := p.Visit(t.Context(), VisitRequest{URL: fixtureURL(srv, "/search", "", stream, "udm", serpfixture.AIModeUDM),
		Mode: ModeConversation, Prompts: prompts})
	if err != nil {
		t.Fatalf("Visit: %v", err)
	}
	if !res.Settled {
		t.Error("not settled, want both answers whole")
	}
	got, err := serp.ExtractAIMode(res.HTML)
	if err != nil {
		t.Fatal(err)
	}
	final, err := serpfixture.FinalAIModePage(prompts[0], "en", "us", prompts[1:]...)
	if err != nil {
		t.Fatal(err)
	}
	want, err := serp.ExtractAIMode(final)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("visited page reads differently from the finished page (-final +visit):\n%s", diff)
	}
	if !got.Complete || len(got.Turns) != 1 || !got.Turns[0].Complete {
		t.Errorf("complete %v, %d follow-up turns; want a complete answer and its follow-up", got.Complete, len(got.Turns))
	}
}

// TestVisitUnfinishedConversation checks that an AI Mode answer still
// streaming when its wait passes is read as it stands and not settled:
// the follow-up is not asked. The visit's deadline comes before
// OverviewWait would pass: the wait leaves the visit time to end with the
// page as it is, rather than failing it past its deadline.
func TestVisitUnfinishedConversation(t *testing.T) {
	srv := httptest.NewServer(serpfixture.New(serpfixture.Options{Logger: testLogger(t)}))
	t.Cleanup(srv.Close)
	p := newTestPool(t, func(c *Config) { c.Tabs, c.OverviewWait, c.VisitTimeout = 1, 19*time.Second, 20*time.Second })
	stream := url.Values{serpfixture.ParamDelay: {"60s"}, serpfixture.ParamGenerating: {"1s"}, serpfixture.ParamPause: {"10s"}}
	res, err := p.Visit(t.Context(), VisitRequest{URL: fixtureURL(srv, "/search", "", stream, "udm", serpfixture.AIModeUDM),
		Mode: ModeConversation, Prompts: []string{"why is the sky blue", "never asked"}})
	if err != nil {
		t.Fatalf("Visit: %v", err)
	}
	if res.Settled {
		t.Error("settled, want the wait to have ended unfinished")
	}
	got, err := serp.ExtractAIMode(res.HTML)
	if err != nil {
		t.Fatal(err)
	}
	if !got.HasAnswer || got.Complete || len(got.Turns) != 0 || got.Text == "" {
		t.Errorf("hasAnswer %v, complete %v, %d turns, text %.40q; want the first burst, incomplete, the follow-up not asked",
			got.HasAnswer, got.Complete, len(got.Turns), got.Text)
	}
}
