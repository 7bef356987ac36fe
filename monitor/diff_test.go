package monitor

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kisa-dev/kisa"
)

func src(urls ...string) []kisa.Source {
	out := make([]kisa.Source, len(urls))
	for i, u := range urls {
		out[i] = kisa.Source{URL: u, Title: u}
	}
	return out
}

func sim(f float64) *float64 { return &f }

const text = "Running shoes should fit well, cushion the foot and suit the surface you run on most often."

func TestCompare(t *testing.T) {
	watch := []string{"example.com", "shop.co.uk"}
	base := Reading{HasOverview: true, Text: text,
		Sources: src("https://a.com/1", "https://blog.example.com/x#:~:text=fit", "https://c.org/")}
	tests := []struct {
		name      string
		prev, cur Reading
		want      []Change
	}{
		{name: "same", prev: base, cur: base},
		{name: "fragment only differs", prev: base, cur: Reading{HasOverview: true, Text: text,
			Sources: src("https://a.com/1", "https://blog.example.com/x#:~:text=cushion", "https://c.org/")}},
		{name: "appeared", prev: Reading{}, cur: base, want: []Change{
			{Kind: OverviewAppeared}, {Kind: DomainCited, Domain: "example.com", Position: 2}}},
		{name: "disappeared", prev: base, cur: Reading{}, want: []Change{
			{Kind: OverviewDisappeared}, {Kind: DomainUncited, Domain: "example.com", From: 2}}},
		{name: "still absent", prev: Reading{}, cur: Reading{}},
		{name: "added, removed, moved", prev: base, cur: Reading{HasOverview: true, Text: text,
			Sources: src("https://c.org/", "https://new.net/", "https://a.com/1")}, want: []Change{
			{Kind: SourceRemoved, URL: "https://blog.example.com/x#:~:text=fit", From: 2},
			{Kind: SourceMoved, URL: "https://c.org/", From: 3, To: 1},
			{Kind: SourceAdded, URL: "https://new.net/", To: 2},
			{Kind: SourceMoved, URL: "https://a.com/1", From: 1, To: 3},
			{Kind: DomainUncited, Domain: "example.com", From: 2},
		}},
		{name: "small rewording is no change", prev: base, cur: Reading{HasOverview: true, Sources: base.Sources,
			Text: "Running shoes should fit well, cushion your foot and suit the surface you run on most often."}},
		{name: "rewritten text", prev: base, cur: Reading{HasOverview: true, Sources: base.Sources,
			Text: "Pick running shoes by the surface: road shoes cushion, trail shoes grip."}, want: []Change{
			{Kind: TextChanged, Similarity: sim(0.118)}}},
		{name: "cited in an inline citation only", prev: Reading{HasOverview: true, Text: text},
			cur:  Reading{HasOverview: true, Text: text, Citations: []kisa.Citation{{URL: "https://www.shop.co.uk/p"}}},
			want: []Change{{Kind: DomainCited, Domain: "shop.co.uk", Position: 1}}},
		{name: "look-alike domain is not watched", prev: Reading{HasOverview: true, Text: text},
			cur:  Reading{HasOverview: true, Text: text, Sources: src("https://notexample.com/")},
			want: []Change{{Kind: SourceAdded, URL: "https://notexample.com/", To: 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Compare(tt.prev, tt.cur, watch)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Compare (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSimilarity(t *testing.T) {
	tests := []struct {
		name string
		a, b string
		want float64
	}{
		{"both empty", "", "", 1},
		{"one empty", "a b", "", 0},
		{"same", "The quick fox.", "the quick fox", 1},
		{"one word of ten replaced", "a b c d e f g h i j", "a b c d e f g h i x", 0.9},
		{"one word of ten dropped", "a b c d e f g h i j", "a b c d e f g h i", 0.9},
		{"nothing shared", "one two", "three four", 0},
		{"reordered", "a b c d", "d c b a", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Similarity(tt.a, tt.b); got != tt.want {
				t.Errorf("Similarity = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestMatchDomain(t *testing.T) {
	watch := []string{"example.com", "bbc.co.uk"}
	tests := []struct {
		url, want string
	}{
		{"https://example.com/", "example.com"},
		{"https://WWW.Example.COM./a", "example.com"},
		{"https://a.b.example.com/", "example.com"},
		{"https://notexample.com/", ""},
		{"https://example.com.evil.net/", ""},
		{"https://news.bbc.co.uk/x", "bbc.co.uk"},
		{"https://co.uk/", ""},
		{"not a url", ""},
		{"", ""},
	}
	for _, tt := range tests {
		if got := MatchDomain(tt.url, watch); got != tt.want {
			t.Errorf("MatchDomain(%q) = %q, want %q", tt.url, got, tt.want)
		}
	}
}

func TestRegistrable(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"example.com", "example.com", true},
		{"https://www.Example.co.uk/x", "example.co.uk", true},
		{"blog.example.com", "example.com", true},
		{"co.uk", "", false},
		{"localhost", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		if got, ok := Registrable(tt.in); got != tt.want || ok != tt.ok {
			t.Errorf("Registrable(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

// TestReadingOfSurfaces checks what a reading keeps of each surface's
// result, and that two web readings compare by rank without text events.
func TestReadingOfSurfaces(t *testing.T) {
	cite := func(u string) []kisa.Citation { return []kisa.Citation{{URL: u}} }
	aiMode := kisa.Result{Overview: kisa.Overview{HasOverview: true, Text: "not this"},
		AIMode: &kisa.Answer{HasAnswer: true, AnswerTurn: kisa.AnswerTurn{Complete: true, Text: "Trail shoes grip.",
			Sources: src("https://a.com/"), Citations: cite("https://a.com/"),
			Paragraphs: []kisa.Paragraph{{Citations: cite("https://b.com/")}}},
			Turns: []kisa.AnswerTurn{{Text: "a follow-up", Sources: src("https://c.com/")}}}}
	web := func(urls ...string) kisa.Result {
		r := kisa.Result{Web: &kisa.WebResults{}}
		for i, u := range urls {
			r.Web.Organic = append(r.Web.Organic, kisa.OrganicResult{Position: i + 1, Title: "T" + u, URL: u, Description: "d"})
		}
		return r
	}
	tests := []struct {
		name     string
		surface  string
		res      kisa.Result
		want     Reading
		complete bool
	}{
		{"overview", SurfaceAIOverview, kisa.Result{Overview: kisa.Overview{HasOverview: true, Complete: true, Text: "x",
			Sources: src("https://a.com/"), Citations: cite("https://a.com/"),
			Paragraphs: []kisa.Paragraph{{Citations: cite("https://a.com/")}, {Citations: cite("https://b.com/")}}}},
			Reading{HasOverview: true, Text: "x", Sources: src("https://a.com/"),
				Citations: append(cite("https://a.com/"), cite("https://b.com/")...)}, true},
		{"AI Mode: every turn's text, the first answer's sources", SurfaceAIMode, aiMode, Reading{HasOverview: true, Text: "Trail shoes grip.\n\na follow-up",
			Sources: src("https://a.com/"), Citations: append(cite("https://a.com/"), cite("https://b.com/")...)}, true},
		{"AI Mode not offered", SurfaceAIMode, kisa.Result{AIMode: &kisa.Answer{Reason: kisa.ReasonNotAvailable}}, Reading{}, false},
		{"web: organic results as sources", SurfaceWebSearch, web("https://www.shop.example.com/a", "https://b.org/"),
			Reading{HasOverview: true, Sources: []kisa.Source{{URL: "https://www.shop.example.com/a", Title: "Thttps://www.shop.example.com/a",
				Source: "shop.example.com"}, {URL: "https://b.org/", Title: "Thttps://b.org/", Source: "b.org"}}}, true},
		{"web: no results", SurfaceWebSearch, web(), Reading{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, complete := ReadingOf(tt.surface, tt.res)
			if diff := cmp.Diff(tt.want, got); diff != "" || complete != tt.complete {
				t.Errorf("ReadingOf (-want +got):\n%s\ncomplete %t, want %t", diff, complete, tt.complete)
			}
		})
	}
	before, _ := ReadingOf(SurfaceWebSearch, web("https://shop.example.com/a", "https://b.org/", "https://c.net/"))
	after, _ := ReadingOf(SurfaceWebSearch, web("https://c.net/", "https://b.org/", "https://d.io/"))
	want := []Change{{Kind: SourceRemoved, URL: "https://shop.example.com/a", From: 1},
		{Kind: SourceMoved, URL: "https://c.net/", From: 3, To: 1}, {Kind: SourceAdded, URL: "https://d.io/", To: 3},
		{Kind: DomainUncited, Domain: "example.com", From: 1}}
	if diff := cmp.Diff(want, Compare(before, after, []string{"example.com"})); diff != "" {
		t.Errorf("web readings compared (-want +got):\n%s", diff)
	}
}
