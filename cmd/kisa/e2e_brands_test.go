package main

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/kisa-dev/kisa/monitor"
	"github.com/kisa-dev/kisa/serpfixture"
	"github.com/kisa-dev/kisa/testenv"
)

// TestMonitorBrandsEndToEnd reads, through a web and a worker process,
// Chromium and the fixture search engine, three overviews that name
// brands in German (umlauts, a possessive, a plural that does not count),
// Japanese (no spaces) and French with Arabic (accents, an Arabic alias),
// with and without links, and checks each reading's figures, the brand
// report (rates and Wilson intervals worked out by hand), the cited
// sources and `kisa client monitors brands|sources`.
func TestMonitorBrandsEndToEnd(t *testing.T) {
	db, dbURL := testenv.OwnPostgres(t)
	s := startStack(t, stackOptions{waitTimeout: "60s", env: []string{"KISA_LIMIT_OTHER=0", "DATABASE_URL=" + dbURL},
		fixture: serpfixture.Options{OverviewDelay: 200 * time.Millisecond}})
	_, key := newAccountKey(t, db)
	tag := testenv.RandomHex(3)
	de, ja, fr := "trailschuhe "+tag, "トレイルシューズ "+tag, "chaussures "+tag
	s.fixture.SetVariant(de, serpfixture.Variant{Kind: serpfixture.VariantOverview,
		Paragraphs: []string{"Für Trailläufe empfehlen Tester die Modelle von SALOMON und Adidas.",
			"Salomon’s Speedcross gilt als Klassiker; Nikes sind seltener."},
		Links: []serpfixture.VariantLink{{Title: "Speedcross", URL: "https://www.salomon.com/speedcross", Site: "Salomon"},
			{Title: "Test", URL: "https://example.org/test", Site: "Example"}}})
	s.fixture.SetVariant(ja, serpfixture.Variant{Kind: serpfixture.VariantOverview,
		Paragraphs: []string{"トレイルならサロモンとアディダスが人気です。"}})
	s.fixture.SetVariant(fr, serpfixture.Variant{Kind: serpfixture.VariantOverview,
		Paragraphs: []string{"Les chaussures Décathlon et Nike sont moins chères.", "أفضل حذاء هو نايكي."},
		Links: []serpfixture.VariantLink{{Title: "Kalenji", URL: "https://www.decathlon.fr/kalenji", Site: "Decathlon"},
			{Title: "Pegasus", URL: "https://blog.nike.com/pegasus", Site: "Nike"}}})
	body := fmt.Sprintf(`{"name":"Brands","schedule":{"type":"daily","time":"%s"},"paused":true,
		"watch":{"brands":[{"name":"Salomon","aliases":["サロモン"],"domains":["salomon.com"],"own":true},
			{"name":"Adidas","aliases":["アディダス"],"domains":["adidas.de"]},{"name":"Nike","aliases":["نايكي"],"domains":["nike.com"]},
			{"name":"Decathlon","domains":["decathlon.fr"]}]},
		"targets":[{"query":%q,"countryCode":"de","languageCode":"de"},{"query":%q,"countryCode":"jp","languageCode":"ja"},
			{"query":%q,"countryCode":"fr","languageCode":"fr"}]}`, time.Now().UTC().Add(12*time.Hour).Format("15:04"), de, ja, fr)
	status, _, raw := call(t, http.MethodPost, s.base+"/v1/monitors", key, body)
	if status != http.StatusCreated {
		t.Fatalf("create: %d %s", status, raw)
	}
	mon := dataOf[monitor.View](t, raw)
	base := s.base + "/v1/monitors/" + mon.ID
	if run := runNow(t, s, key, base); run.Counts.Read != 3 {
		t.Fatalf("run: %+v", run)
	}

	type fig struct {
		Mentions  int
		Rank      int
		Positions []int
	}
	for i, want := range []map[string]fig{
		{"Salomon": {2, 1, []int{1}}, "Adidas": {1, 2, []int{}}, "Nike": {0, 0, []int{}}, "Decathlon": {0, 0, []int{}}},
		{"Salomon": {1, 1, []int{}}, "Adidas": {1, 2, []int{}}, "Nike": {0, 0, []int{}}, "Decathlon": {0, 0, []int{}}},
		{"Salomon": {0, 0, []int{}}, "Adidas": {0, 0, []int{}}, "Nike": {2, 2, []int{2}}, "Decathlon": {1, 1, []int{1}}},
	} {
		status, _, raw := call(t, http.MethodGet, base+"/targets/"+mon.Targets[i].ID+"/history?from=2000-01-01", key, "")
		h := dataOf[monitor.History](t, raw)
		if status != http.StatusOK || len(h.Readings) != 1 {
			t.Fatalf("history %d: %d %.600s", i, status, raw)
		}
		got := map[string]fig{}
		for _, b := range h.Readings[0].Brands {
			f := fig{Mentions: b.Mentions, Positions: b.CitationPositions}
			if b.FirstMentionRank != nil {
				f.Rank = *b.FirstMentionRank
			}
			got[b.Name] = f
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("target %d's brands (-want +got):\n%s\ntext %q", i, diff, *h.Readings[0].Text)
		}
	}
	status, _, raw = call(t, http.MethodGet, base+"/targets/"+mon.Targets[0].ID+"/history?from=2000-01-01", key, "")
	if p := dataOf[monitor.History](t, raw).Readings[0].Brands[0].Passage; status != 200 || p == nil ||
		*p != "Für Trailläufe empfehlen Tester die Modelle von SALOMON und Adidas." {
		t.Errorf("Salomon's passage = %v", p)
	}

	// Three answers; eight mentions in all. Wilson at 95%: 2 of 3
	// [0.2077, 0.9385], 1 of 3 [0.0615, 0.7923], 0 of 3 [0, 0.5615]; of 8
	// mentions 3 [0.1368, 0.6943], 2 [0.0715, 0.5907], 1 [0.0224, 0.4709]
	// (center (p + z²/2n)/(1 + z²/n), half-width z/(1 + z²/n)·sqrt(p(1-p)/n + z²/4n²)).
	f := func(v float64) *float64 { return &v }
	iv := func(lo, hi float64) *monitor.Interval { return &monitor.Interval{Low: lo, High: hi} }
	two, one, none := iv(0.2077, 0.9385), iv(0.0615, 0.7923), iv(0, 0.5615)
	want := monitor.BrandReport{GroupBy: []string{"surface"}, Groups: []monitor.BrandGroup{{Key: map[string]string{"surface": "ai-overview"},
		Brands: []monitor.BrandAggregate{
			{Name: "Salomon", Own: true, Readings: 3, Answers: 3, Mentions: 3, MentionRate: f(0.6667), MentionRateInterval: two,
				CitationRate: f(0.3333), CitationRateInterval: one, ShareOfVoice: f(0.375), ShareOfVoiceInterval: iv(0.1368, 0.6943),
				AverageFirstMentionRank: f(1), AverageCitationPosition: f(1)},
			{Name: "Adidas", Readings: 3, Answers: 3, Mentions: 2, MentionRate: f(0.6667), MentionRateInterval: two,
				CitationRate: f(0), CitationRateInterval: none, ShareOfVoice: f(0.25), ShareOfVoiceInterval: iv(0.0715, 0.5907),
				AverageFirstMentionRank: f(2)},
			{Name: "Nike", Readings: 3, Answers: 3, Mentions: 2, MentionRate: f(0.3333), MentionRateInterval: one,
				CitationRate: f(0.3333), CitationRateInterval: one, ShareOfVoice: f(0.25), ShareOfVoiceInterval: iv(0.0715, 0.5907),
				AverageFirstMentionRank: f(2), AverageCitationPosition: f(2)},
			{Name: "Decathlon", Readings: 3, Answers: 3, Mentions: 1, MentionRate: f(0.3333), MentionRateInterval: one,
				CitationRate: f(0.3333), CitationRateInterval: one, ShareOfVoice: f(0.125), ShareOfVoiceInterval: iv(0.0224, 0.4709),
				AverageFirstMentionRank: f(1), AverageCitationPosition: f(1)}}}}}
	status, _, raw = call(t, http.MethodGet, base+"/brands?from=2000-01-01&groupBy=surface", key, "")
	if diff := cmp.Diff(want, dataOf[monitor.BrandReport](t, raw), cmpopts.IgnoreUnexported(monitor.BrandAggregate{})); status != 200 || diff != "" {
		t.Errorf("brands: %d (-want +got):\n%s", status, diff)
	}

	env := testenv.Environ(append(append([]string{}, s.environ...), "KISA_URL="+s.base, "KISA_API_KEY="+key)...)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"brands", mon.ID, "--from", "2000-01-01T00:00:00Z", "--group-by", "country", "--csv"},
			"de,Salomon,true,1,1,2,1,0.2065,1,1,0.2065,1,0.6667,0.2077,0.9385,1,1\n"},
		{[]string{"sources", mon.ID, "--from", "2000-01-01T00:00:00Z"}, `"domain": "salomon.com"`},
		{[]string{"sources", mon.ID, "--from", "2000-01-01T00:00:00Z", "--csv"}, "nike.com,competitor,Nike,,1,0.3333\n"},
	} {
		out, errOut, err := cliRun(t, env, "", append([]string{"client", "monitors"}, c.args...)...)
		if err != nil || !strings.Contains(out, c.want) {
			t.Errorf("kisa client monitors %v: %v %s\n%.1200s", c.args, err, errOut, out)
		}
	}
}
