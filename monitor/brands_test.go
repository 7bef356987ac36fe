package monitor

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kisa-dev/kisa"
)

// figure is the part of BrandFigures a matching case checks.
type figure struct {
	Mentions  int
	Rank      int // 0: not mentioned
	Positions []int
	Passage   string
}

func checked(fs []BrandFigures) map[string]figure {
	out := map[string]figure{}
	for _, f := range fs {
		g := figure{Mentions: f.Mentions, Positions: f.CitationPositions}
		if f.FirstMentionRank != nil {
			g.Rank = *f.FirstMentionRank
		}
		if f.Passage != nil {
			g.Passage = *f.Passage
		}
		if f.Mentioned != (f.Mentions > 0) || f.Cited != (len(f.CitationPositions) > 0) {
			g.Mentions = -1 // inconsistent
		}
		out[f.Name] = g
	}
	return out
}

func TestMeasure(t *testing.T) {
	nike := Brand{Name: "Nike", Domains: []string{"nike.com"}, Own: true}
	adidas := Brand{Name: "Adidas", Aliases: []string{"adidas Originals"}, Domains: []string{"adidas.de"}}
	for _, tc := range []struct {
		name    string
		surface string
		text    string
		sources []string
		cites   []string
		brands  []Brand
		want    map[string]figure
	}{
		{name: "possessive counts, plural and longer words do not", text: "Nike's Pegasus beats Adidas. Nikes sell well; Nikesh runs. Adidas-Schuhe and NIKE too.",
			brands: []Brand{nike, adidas}, want: map[string]figure{
				"Nike":   {Mentions: 2, Rank: 1, Positions: []int{}, Passage: "Nike's Pegasus beats Adidas."},
				"Adidas": {Mentions: 2, Rank: 2, Positions: []int{}, Passage: "Nike's Pegasus beats Adidas."}}},
		{name: "the longest of overlapping names", text: "Try adidas Originals first.\nThen Nike.",
			brands: []Brand{nike, adidas}, want: map[string]figure{
				"Nike":   {Mentions: 1, Rank: 2, Positions: []int{}, Passage: "Then Nike."},
				"Adidas": {Mentions: 1, Rank: 1, Positions: []int{}, Passage: "Try adidas Originals first."}}},
		{name: "German umlauts and ß", text: "Bei MÜLLER gibt es sie, bei Muller auch, nicht bei Mueller. Die Große Straße führt hin.",
			brands: []Brand{{Name: "Müller", Own: true}, {Name: "Grosse Strasse"}}, want: map[string]figure{
				"Müller":         {Mentions: 2, Rank: 1, Positions: []int{}, Passage: "Bei MÜLLER gibt es sie, bei Muller auch, nicht bei Mueller."},
				"Grosse Strasse": {Mentions: 1, Rank: 2, Positions: []int{}, Passage: "Die Große Straße führt hin."}}},
		{name: "French accents and elision", text: "Chez Décathlon ou chez l’Oréal? Decathlon l'emporte.",
			brands: []Brand{{Name: "Decathlon", Own: true}, {Name: "L'Oréal"}, {Name: "Oreal"}}, want: map[string]figure{
				"Decathlon": {Mentions: 2, Rank: 1, Positions: []int{}, Passage: "Chez Décathlon ou chez l’Oréal?"},
				"L'Oréal":   {Mentions: 1, Rank: 2, Positions: []int{}, Passage: "Chez Décathlon ou chez l’Oréal?"},
				"Oreal":     {Positions: []int{}}}},
		{name: "Japanese without spaces", text: "テレビならソニーとパナソニックが人気です。ソニーは高い。NikeとＡＤＩＤＡＳも。",
			brands: []Brand{{Name: "ソニー", Own: true}, {Name: "パナソニック"}, nike, adidas}, want: map[string]figure{
				"ソニー":    {Mentions: 2, Rank: 1, Positions: []int{}, Passage: "テレビならソニーとパナソニックが人気です。"},
				"パナソニック": {Mentions: 1, Rank: 2, Positions: []int{}, Passage: "テレビならソニーとパナソニックが人気です。"},
				"Nike":   {Mentions: 1, Rank: 3, Positions: []int{}, Passage: "NikeとＡＤＩＤＡＳも。"},
				"Adidas": {Mentions: 1, Rank: 4, Positions: []int{}, Passage: "NikeとＡＤＩＤＡＳも。"}}},
		{name: "Chinese without spaces", text: "我推荐小米和华为手机。华为的相机更好。",
			brands: []Brand{{Name: "华为", Aliases: []string{"Huawei"}, Own: true}, {Name: "小米"}}, want: map[string]figure{
				"华为": {Mentions: 2, Rank: 2, Positions: []int{}, Passage: "我推荐小米和华为手机。"},
				"小米": {Mentions: 1, Rank: 1, Positions: []int{}, Passage: "我推荐小米和华为手机。"}}},
		{name: "Arabic with vowel marks and a proclitic", text: "أفضل هاتف هو سَامسونج، ثم أبل. ووسامسونج؟ لا. وسامسونج أرخص من أبلكم.",
			brands: []Brand{{Name: "سامسونج", Own: true}, {Name: "أبل"}}, want: map[string]figure{
				"سامسونج": {Mentions: 2, Rank: 1, Positions: []int{}, Passage: "أفضل هاتف هو سَامسونج، ثم أبل."},
				"أبل":     {Mentions: 1, Rank: 2, Positions: []int{}, Passage: "أفضل هاتف هو سَامسونج، ثم أبل."}}},
		{name: "interface strings are not mentions", text: "Gemini can make mistakes, so double-check it. AI Mode says: use Copilot.",
			brands: []Brand{{Name: "Gemini", Own: true}, {Name: "AI Mode"}, {Name: "Copilot"}}, want: map[string]figure{
				"Gemini":  {Positions: []int{}},
				"AI Mode": {Positions: []int{}},
				"Copilot": {Mentions: 1, Rank: 1, Positions: []int{}, Passage: "AI Mode says: use Copilot."}}},
		{name: "cited with and without a mention", text: "Running shoes compared.",
			sources: []string{"https://www.nike.com/a", "https://notnike.com/", "https://shop.adidas.de/x", "https://news.example/"},
			cites:   []string{"https://news.example/", "https://running.nike.com/b#frag", "https://www.nike.com/a"},
			brands:  []Brand{nike, adidas}, want: map[string]figure{
				"Nike":   {Positions: []int{1, 5}},
				"Adidas": {Positions: []int{3}}}},
		{name: "web search counts rank, not text", surface: SurfaceWebSearch, text: "Nike",
			sources: []string{"https://example.com/", "https://adidas.de/", "https://www.adidas.de/shoes"},
			brands:  []Brand{nike, adidas}, want: map[string]figure{
				"Nike":   {Positions: []int{}},
				"Adidas": {Positions: []int{2, 3}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Reading{HasOverview: true, Text: tc.text}
			for _, u := range tc.sources {
				r.Sources = append(r.Sources, kisa.Source{URL: u})
			}
			for _, u := range tc.cites {
				r.Citations = append(r.Citations, kisa.Citation{URL: u})
			}
			got := checked(Measure(cmpOr(tc.surface, SurfaceAIOverview), r, tc.brands))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("figures (-want +got):\n%s", diff)
			}
		})
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func TestNormalBrands(t *testing.T) {
	p := problems{}
	got := normalBrands([]Brand{
		{Name: "  Nike ", Aliases: []string{"NIKE", "Nike Inc", "nike  inc"}, Domains: []string{"Nike.com"}, Own: true},
		{Name: "Adidas", Domains: []string{"shop.adidas.de"}},
		{Name: "nike inc"},
		{Name: "--"},
	}, p)
	want := map[string]string{
		"watch.brands[1].domains[0]": "must be a registrable domain, e.g. example.com (its subdomains match too)",
		"watch.brands[2].name":       "a name or alias repeats one of watch.brands[0]",
		"watch.brands[3].name":       "must contain a letter or a digit",
	}
	if diff := cmp.Diff(want, map[string]string(p)); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(Brand{Name: "Nike", Aliases: []string{"Nike Inc"}, Domains: []string{"nike.com"}, Own: true}, got[0]); diff != "" {
		t.Errorf("normalised (-want +got):\n%s", diff)
	}
	p = problems{}
	normalBrands([]Brand{{Name: "Adidas"}}, p)
	if p["watch.brands"] == "" {
		t.Errorf("no own brand accepted: %v", p)
	}
}
