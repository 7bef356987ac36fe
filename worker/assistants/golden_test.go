package assistants_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/worker/assistants"
)

// cite and src are what a golden test asserts of a citation and a source.
type cite struct {
	Position    int
	URL, Source string
	TitlePrefix string
}

type src struct {
	Position   int
	URL, Title string
	Cited      bool
}

// wantTurn is what a golden test asserts of one answer.
type wantTurn struct {
	query, first string
	paragraphs   int
	citations    []cite
	sources      []src
	model        string
}

// readTestdata reads a real page of testdata/ with read.
func readTestdata(t *testing.T, name string, read func(string) (kisa.Answer, error)) kisa.Answer {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	a, err := read(string(b))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if !a.HasAnswer {
		t.Fatalf("%s: no answer", name)
	}
	return a
}

// checkTurn compares an answer with what is wanted of it.
func checkTurn(t *testing.T, got kisa.AnswerTurn, want wantTurn) {
	t.Helper()
	if got.Query != want.query {
		t.Errorf("query %q, want %q", got.Query, want.query)
	}
	if !strings.HasPrefix(got.Text, want.first) || !strings.HasPrefix(got.Markdown, strings.Fields(want.first)[0]) {
		t.Errorf("text %.80q, markdown %.80q: want them to begin %q", got.Text, got.Markdown, want.first)
	}
	if !got.Complete {
		t.Error("a saved finished page read as still streaming")
	}
	if want.paragraphs != 0 && len(got.Paragraphs) != want.paragraphs {
		t.Errorf("%d paragraphs, want %d", len(got.Paragraphs), want.paragraphs)
	}
	var texts []string
	for _, p := range got.Paragraphs {
		texts = append(texts, p.Text)
	}
	if got.Text != strings.Join(texts, "\n") {
		t.Errorf("text is not the paragraphs' text")
	}
	var cites []cite
	for _, c := range got.Citations {
		title := c.Title
		if len(title) > 10 {
			title = title[:10]
		}
		cites = append(cites, cite{Position: c.Position, URL: c.URL, Source: c.Source, TitlePrefix: title})
	}
	for i := range want.citations {
		if i < len(cites) && want.citations[i].TitlePrefix == "" {
			cites[i].TitlePrefix = ""
		}
	}
	if diff := cmp.Diff(want.citations, cites); diff != "" {
		t.Errorf("citations (-want +got):\n%s", diff)
	}
	var sources []src
	for _, s := range got.Sources {
		sources = append(sources, src{Position: s.Position, URL: s.URL, Title: s.Title, Cited: s.Cited != nil && *s.Cited})
	}
	if diff := cmp.Diff(want.sources, sources); diff != "" {
		t.Errorf("sources (-want +got):\n%s", diff)
	}
	if got.Model != want.model {
		t.Errorf("model %q, want %q", got.Model, want.model)
	}
	for n := range len(got.Citations) {
		if !strings.Contains(got.Markdown, "["+strconv.Itoa(n+1)+"]") {
			t.Errorf("markdown has no marker [%d]", n+1)
		}
	}
}

// TestReadChatGPTReal reads the real ChatGPT page: a shared conversation
// of June 2026 (testdata/README.md) whose answer cites four pages through
// pills; the page shows no sources panel, so the sources are the pages
// the pills link.
func TestReadChatGPTReal(t *testing.T) {
	a := readTestdata(t, "chatgpt-share-air-purifier-2026-06.html", assistants.ReadChatGPT)
	const (
		guide = "https://www.epa.gov/indoor-air-quality-iaq/guide-air-cleaners-home"
		hepa  = "https://www.epa.gov/indoor-air-quality-iaq/what-hepa-filter"
		wired = "https://www.wired.com/story/youre-probably-using-your-air-purifier-wrong"
		radar = "https://www.techradar.com/home/air-quality/how-to-choose-an-air-purifier-for-hay-fever"
	)
	checkTurn(t, a.AnswerTurn, wantTurn{
		query: "How do I choose a good air purifier for my bedroom? Please explain the key things to look for and cite reliable sources inline.",
		first: "For a bedroom air purifier, the most important thing is not the brand name",
		citations: []cite{{1, guide, "US EPA", ""}, {2, hepa, "US EPA", ""}, {3, wired, "WIRED", ""},
			{4, radar, "TechRadar", ""}},
		sources: []src{{1, guide, "", true}, {2, hepa, "", true}, {3, wired, "", true}, {4, radar, "", true}},
	})
	if len(a.Turns) != 0 {
		t.Errorf("%d follow-ups, want none", len(a.Turns))
	}
	for _, bad := range []string{"Sources", "ChatGPT said", "+1", "Copy"} {
		if strings.Contains(a.Text, bad) {
			t.Errorf("text holds the interface string %q", bad)
		}
	}
	if !strings.Contains(a.Markdown, "#### 1. **CADR (Clean Air Delivery Rate)") ||
		!strings.Contains(a.Markdown, "| Bedroom-focused | Yes | Yes | Yes |") {
		t.Errorf("markdown lost a heading or a table row:\n%s", a.Markdown)
	}
}

// TestReadPerplexityReal reads the real Perplexity thread of December
// 2024: two answers, each with its source cards and numbered citations.
func TestReadPerplexityReal(t *testing.T) {
	a := readTestdata(t, "perplexity-thread-what-day-is-it-2024-12.html", assistants.ReadPerplexity)
	const (
		today  = "https://www.inchcalculator.com/what-is-todays-date/"
		canada = "https://www.calendarr.com/canada/"
		daynum = "https://www.epochconverter.com/daynumbers"
		hols   = "https://www.timeanddate.com/holidays/canada/"
		left   = "https://www.inchcalculator.com/days-left-in-the-year/"
		gift   = "https://www.saturdaygift.com/days/day-numbers-2024/"
		d2024  = "https://www.epochconverter.com/days/2024"
	)
	checkTurn(t, a.AnswerTurn, wantTurn{
		query:      "What day is it today",
		first:      "Today is Thursday, December 19, 2024. It is the 354th day of the year",
		paragraphs: 1,
		citations:  []cite{{1, daynum, "epochconverter", "What's the"}},
		sources: []src{{1, today, "What Is Today's Date? - Inch Calculator", false},
			{2, canada, "Calendar (Canada) - Calendarr", false},
			{3, daynum, "What's the Current Day Number? - Epoch Converter", true},
			{4, hols, "Today's and Upcoming Holidays in Canada - Time and Date", false}},
	})
	if len(a.Turns) != 1 {
		t.Fatalf("%d follow-ups, want 1", len(a.Turns))
	}
	checkTurn(t, a.Turns[0], wantTurn{
		query: "How many days are left in 2024",
		first: "There are 12 days left in 2024.",
		citations: []cite{{1, left, "inchcalculator", "How Many D"}, {2, gift, "saturdaygift", "Day number"},
			{3, d2024, "epochconverter", "Day Number"}},
		sources: []src{{1, left, "How Many Days Are Left in 2024? Time Left in the Year - Inch Calculator", true},
			{2, gift, "Day numbers for 2024 - What day is it? - Saturday Gift", true},
			{3, d2024, "Day Numbers for 2024 - Epoch Converter", true}},
	})
	if !strings.HasPrefix(a.Turns[0].Markdown, "There are **12 days left in 2024**[1][2][3].") {
		t.Errorf("markdown %.80q", a.Turns[0].Markdown)
	}
}
