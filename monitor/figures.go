package monitor

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// BrandFigures are one brand's figures in one reading.
//
// In an answer (every surface but web search): Mentioned and Mentions
// count its name and aliases in the text of every turn (matches);
// FirstMentionRank is 1 when it is the first of the watched brands the
// text names, 2 for the second, and so on (nil when not named); Passage
// is the sentence of its first mention. Cited is true when a source or
// inline citation is on one of its domains (or their subdomains), and
// CitationPositions are their 1-based places in the reading's cited list:
// the sources in order, then the inline citations whose URL is not a
// source's.
//
// In a web search, which has no text, the brand counts by rank instead:
// Mentioned and Mentions are false and 0, Cited is true when an organic
// result is on its domains and CitationPositions are those results'
// ranks (the first is its best organic result's).
type BrandFigures struct {
	Name              string  `json:"name"`
	Own               bool    `json:"own"`
	Mentioned         bool    `json:"mentioned"`
	Mentions          int     `json:"mentions"`
	FirstMentionRank  *int    `json:"firstMentionRank"`
	Cited             bool    `json:"cited"`
	CitationPositions []int   `json:"citationPositions"`
	Passage           *string `json:"passage"`
	// PassageAt is the byte range [start, end) of Passage in the
	// reading's text; storage keeps it instead of the passage.
	PassageAt [2]int `json:"-"`
}

// Measure returns each brand's figures in the reading r of surface, in
// the order of brands. The text of an answer is r.Text, every turn's.
func Measure(surface string, r Reading, brands []Brand) []BrandFigures {
	out := make([]BrandFigures, len(brands))
	for i, b := range brands {
		out[i] = BrandFigures{Name: b.Name, Own: b.Own, CitationPositions: citationPositions(r, b.Domains)}
		out[i].Cited = len(out[i].CitationPositions) > 0
	}
	if surface == SurfaceWebSearch || !r.HasOverview || len(brands) == 0 {
		return out
	}
	t := fold(answerText(r.Text))
	rank := 0
	for _, h := range matches(t, patterns(brands)) {
		f := &out[h.brand]
		f.Mentions++
		if f.Mentioned {
			continue
		}
		f.Mentioned = true
		rank++
		n := rank
		f.FirstMentionRank = &n
		f.PassageAt = sentenceAround(r.Text, t.origin[h.start], t.origin[h.end])
		f.Passage = passageOf(r.Text, f.PassageAt)
	}
	return out
}

// citationPositions are the 1-based places of r's cited list (sources,
// then inline citations whose URL is no source's) on one of domains or
// their subdomains. An absent answer cites nothing.
func citationPositions(r Reading, domains []string) []int {
	out := []int{}
	if !r.HasOverview || len(domains) == 0 {
		return out
	}
	seen := map[string]bool{}
	for i, s := range r.Sources {
		seen[sourceKey(s.URL)] = true
		if MatchDomain(s.URL, domains) != "" {
			out = append(out, i+1)
		}
	}
	n := len(r.Sources)
	for _, c := range r.Citations {
		if seen[sourceKey(c.URL)] {
			continue
		}
		seen[sourceKey(c.URL)] = true
		n++
		if MatchDomain(c.URL, domains) != "" {
			out = append(out, n)
		}
	}
	return out
}

// MaxPassage bounds a passage in characters: a longer sentence is cut to
// about half of it on either side of the mention.
const MaxPassage = 300

// sentenceAround is the byte range of the sentence of text holding
// [start, end): from after the previous sentence end (., ! or ? before a
// space, a line break, or a full stop of Chinese, Japanese or Arabic) to
// the next, spaces trimmed, at most MaxPassage characters.
func sentenceAround(text string, start, end int) [2]int {
	a, b := start, end
	for a > 0 && start-a < 2*MaxPassage {
		r, n := utf8.DecodeLastRuneInString(text[:a])
		if endsSentence(r, text[a:]) {
			break
		}
		a -= n
	}
	for b < len(text) && b-end < 2*MaxPassage {
		r, n := utf8.DecodeRuneInString(text[b:])
		b += n
		if endsSentence(r, text[b:]) {
			break
		}
	}
	for a < start && unicode.IsSpace(rune(text[a])) {
		a++
	}
	b = len(strings.TrimRightFunc(text[:b], unicode.IsSpace))
	if utf8.RuneCountInString(text[a:b]) > MaxPassage {
		a, b = runesBefore(text, start, MaxPassage/2), runesAfter(text, end, MaxPassage/2)
	}
	return [2]int{a, b}
}

// endsSentence reports whether r, followed by rest, ends a sentence.
func endsSentence(r rune, rest string) bool {
	switch r {
	case '\n', '。', '！', '？', '؟', '।':
		return true
	case '.', '!', '?':
		next, _ := utf8.DecodeRuneInString(rest)
		return rest == "" || unicode.IsSpace(next)
	}
	return false
}

// runesBefore is the offset n runes before i in s (or 0).
func runesBefore(s string, i, n int) int {
	for ; n > 0 && i > 0; n-- {
		_, w := utf8.DecodeLastRuneInString(s[:i])
		i -= w
	}
	return i
}

// runesAfter is the offset n runes after i in s (or len(s)).
func runesAfter(s string, i, n int) int {
	for ; n > 0 && i < len(s); n-- {
		_, w := utf8.DecodeRuneInString(s[i:])
		i += w
	}
	return i
}

// passageOf is the passage at the byte range at of text, nil when the
// range is empty or outside text.
func passageOf(text string, at [2]int) *string {
	if at[0] >= at[1] || at[1] > len(text) || at[0] < 0 {
		return nil
	}
	p := text[at[0]:at[1]]
	return &p
}
