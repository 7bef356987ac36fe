package overview

import (
	"testing"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/testenv"
)

func TestTrimOverview(t *testing.T) {
	c1 := kisa.Citation{URL: "https://a.example/1", Title: "A one", Source: "A", Favicon: "https://a.example/f.ico"}
	c2 := kisa.Citation{URL: "https://b.example/2", Title: "B two", Source: "B", Favicon: "https://b.example/f.ico"}
	full := kisa.Overview{
		HasOverview: true,
		Complete:    true,
		Text:        "Coffee is brewed. It is popular.",
		Citations:   []kisa.Citation{c1, c2},
		Paragraphs: []kisa.Paragraph{
			{Text: "Coffee is brewed.", Citations: []kisa.Citation{c1}},
			{Text: "It is popular."}, // nil citations
		},
		Sources: []kisa.Source{{URL: "https://a.example/", Title: "A site", Source: "a.example", Icon: "https://a.example/i.png"}},
	}
	const (
		j1   = `{"url":"https://a.example/1","title":"A one","source":"A","favicon":"https://a.example/f.ico"}`
		j2   = `{"url":"https://b.example/2","title":"B two","source":"B","favicon":"https://b.example/f.ico"}`
		src  = `{"url":"https://a.example/","title":"A site","source":"a.example","icon":"https://a.example/i.png"}`
		text = `"hasOverview":true,"complete":true,"text":"Coffee is brewed. It is popular."`
	)
	tests := []struct {
		name string
		ov   kisa.Overview
		sel  Fields
		want string
	}{
		{name: "no selection keeps everything", ov: full, sel: Fields{ParagraphText: true},
			want: `{` + text + `,"citations":[` + j1 + `,` + j2 + `],` +
				`"paragraphs":[{"text":"Coffee is brewed.","citations":[` + j1 + `]},{"text":"It is popular.","citations":[]}],` +
				`"sources":[` + src + `]}`},
		{name: "sources trimmed", ov: full, sel: Fields{ParagraphText: true, Sources: []string{"url", "icon"}},
			want: `{` + text + `,"citations":[` + j1 + `,` + j2 + `],` +
				`"paragraphs":[{"text":"Coffee is brewed.","citations":[` + j1 + `]},{"text":"It is popular.","citations":[]}],` +
				`"sources":[{"url":"https://a.example/","icon":"https://a.example/i.png"}]}`},
		{name: "citations trimmed, paragraph citations kept", ov: full, sel: Fields{ParagraphText: true, Citations: []string{"favicon"}},
			want: `{` + text + `,"citations":[{"favicon":"https://a.example/f.ico"},{"favicon":"https://b.example/f.ico"}],` +
				`"paragraphs":[{"text":"Coffee is brewed.","citations":[` + j1 + `]},{"text":"It is popular.","citations":[]}],` +
				`"sources":[` + src + `]}`},
		{name: "paragraph text dropped, citations trimmed", ov: full, sel: Fields{ParagraphCitation: []string{"url", "title"}},
			want: `{` + text + `,"citations":[` + j1 + `,` + j2 + `],` +
				`"paragraphs":[{"citations":[{"url":"https://a.example/1","title":"A one"}]},{"citations":[]}],` +
				`"sources":[` + src + `]}`},
		{name: "everything selected at once", ov: full,
			sel: Fields{Sources: []string{"title"}, Citations: []string{"source"}, ParagraphText: true, ParagraphCitation: []string{"url"}},
			want: `{` + text + `,"citations":[{"source":"A"},{"source":"B"}],` +
				`"paragraphs":[{"text":"Coffee is brewed.","citations":[{"url":"https://a.example/1"}]},{"text":"It is popular.","citations":[]}],` +
				`"sources":[{"title":"A site"}]}`},
		{name: "no overview: lists are [] not null", ov: kisa.Overview{}, sel: Fields{ParagraphText: true},
			want: `{"hasOverview":false,"complete":false,"text":"","citations":[],"paragraphs":[],"sources":[]}`},
		{name: "no overview with a selection", ov: kisa.Overview{}, sel: Fields{Sources: []string{"url"}, Citations: []string{"url"}},
			want: `{"hasOverview":false,"complete":false,"text":"","citations":[],"paragraphs":[],"sources":[]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := testenv.MustJSON(t, Trim(tt.ov, tt.sel))
			if diff := testenv.JSONDiff(t, tt.want, got); diff != "" {
				t.Errorf("results mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestTrimOverviewKeepsInput: trimming for one request must not change the
// overview another request (the cache) still holds.
func TestTrimOverviewKeepsInput(t *testing.T) {
	ov := kisa.Overview{Citations: []kisa.Citation{{URL: "u", Title: "t", Source: "s", Favicon: "f"}},
		Sources: []kisa.Source{{URL: "u", Title: "t", Source: "s", Icon: "i"}}}
	Trim(ov, Fields{Sources: []string{"url"}, Citations: []string{"url"}})
	got := testenv.MustJSON(t, Trim(ov, Fields{ParagraphText: true}))
	want := `{"hasOverview":false,"complete":false,"text":"","citations":[{"url":"u","title":"t","source":"s","favicon":"f"}],"paragraphs":[],"sources":[{"url":"u","title":"t","source":"s","icon":"i"}]}`
	if diff := testenv.JSONDiff(t, want, got); diff != "" {
		t.Errorf("second trim (-want +got):\n%s", diff)
	}
}

// TestTrimLinkState: a source's or citation's card date and whether its
// URL was resolved through the engine's opaque redirect are answered when
// the page gave them, and can be selected like the other fields.
func TestTrimLinkState(t *testing.T) {
	yes, no := true, false
	ov := kisa.Overview{HasOverview: true,
		Citations: []kisa.Citation{
			{URL: "https://a.example/1", Title: "A", LinkState: kisa.LinkState{PublishedAt: "2026-08-21", Resolved: &yes}},
			{URL: "https://www.google.com/goto?url=CAES1", Title: "B", LinkState: kisa.LinkState{Resolved: &no}},
		},
		Sources: []kisa.Source{{URL: "https://a.example/1", Title: "A", LinkState: kisa.LinkState{PublishedAt: "2026-08-21", Resolved: &yes}}}}
	got := testenv.MustJSON(t, Trim(ov, Fields{Citations: []string{"url", "resolved"}, Sources: []string{"publishedAt"}}))
	want := `{"hasOverview":true,"complete":false,"text":"","paragraphs":[],` +
		`"citations":[{"url":"https://a.example/1","resolved":true},{"url":"https://www.google.com/goto?url=CAES1","resolved":false}],` +
		`"sources":[{"publishedAt":"2026-08-21"}]}`
	if diff := testenv.JSONDiff(t, want, got); diff != "" {
		t.Errorf("results mismatch (-want +got):\n%s", diff)
	}
	got = testenv.MustJSON(t, Trim(ov, Fields{ParagraphText: true}))
	want = `{"hasOverview":true,"complete":false,"text":"","paragraphs":[],` +
		`"citations":[{"url":"https://a.example/1","title":"A","source":"","favicon":"","publishedAt":"2026-08-21","resolved":true},` +
		`{"url":"https://www.google.com/goto?url=CAES1","title":"B","source":"","favicon":"","resolved":false}],` +
		`"sources":[{"url":"https://a.example/1","title":"A","source":"","icon":"","publishedAt":"2026-08-21","resolved":true}]}`
	if diff := testenv.JSONDiff(t, want, got); diff != "" {
		t.Errorf("no selection (-want +got):\n%s", diff)
	}
}
