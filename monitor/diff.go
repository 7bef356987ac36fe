package monitor

import (
	"net/url"
	"strings"
	"unicode"

	"github.com/kisa-dev/kisa"
)

// Change event kinds.
const (
	OverviewAppeared    = "overview.appeared"
	OverviewDisappeared = "overview.disappeared"
	SourceAdded         = "source.added"
	SourceRemoved       = "source.removed"
	SourceMoved         = "source.moved"
	TextChanged         = "text.changed"
	DomainCited         = "domain.cited"
	DomainUncited       = "domain.uncited"
)

// TextThreshold is the similarity at or above which two overview texts
// count as the same: a rewording that changes less than a tenth of the
// words (see Similarity) is not a text.changed event.
const TextThreshold = 0.9

// Reading is what the comparison looks at in one successful reading of a
// target.
type Reading struct {
	HasOverview bool
	Text        string
	Sources     []kisa.Source
	Citations   []kisa.Citation
}

// Change is one difference between a target's reading and its previous
// successful one. Position fields are 1-based places in the sources panel.
type Change struct {
	Kind       string   `json:"kind"`
	URL        string   `json:"url,omitempty"`
	Domain     string   `json:"domain,omitempty"`
	From       int      `json:"from,omitempty"`
	To         int      `json:"to,omitempty"`
	Position   int      `json:"position,omitempty"`
	Similarity *float64 `json:"similarity,omitempty"`
	// Brand names the brand of a brand.* event.
	Brand string `json:"brand,omitempty"`
	// Rate and Previous are a sampled target's brand.* event: the rate
	// over the run's samples, and the interval of the previous run's
	// rate it moved past.
	Rate     *float64  `json:"rate,omitempty"`
	Previous *Interval `json:"previousInterval,omitempty"`
}

// Compare returns the change events from prev to cur, for the watched
// registrable domains: overview appeared or disappeared; sources added,
// removed or moved and the text changed (both with an overview); watched
// domains newly cited or no longer cited (in the sources or the inline
// citations). The order is stable: overview, sources by position, text,
// domains as watched.
func Compare(prev, cur Reading, watch []string) []Change {
	var out []Change
	switch {
	case !prev.HasOverview && cur.HasOverview:
		out = append(out, Change{Kind: OverviewAppeared})
	case prev.HasOverview && !cur.HasOverview:
		out = append(out, Change{Kind: OverviewDisappeared})
	case prev.HasOverview && cur.HasOverview:
		out = append(out, compareSources(prev.Sources, cur.Sources)...)
		if s := Similarity(prev.Text, cur.Text); s < TextThreshold {
			s = float64(int(s*1000+0.5)) / 1000
			out = append(out, Change{Kind: TextChanged, Similarity: &s})
		}
	}
	before, after := cited(prev, watch), cited(cur, watch)
	for _, d := range watch {
		switch {
		case after[d] > 0 && before[d] == 0:
			out = append(out, Change{Kind: DomainCited, Domain: d, Position: after[d]})
		case after[d] == 0 && before[d] > 0:
			out = append(out, Change{Kind: DomainUncited, Domain: d, From: before[d]})
		}
	}
	return out
}

// compareSources lists the sources removed (by their old position),
// added and moved (by their new one).
func compareSources(prev, cur []kisa.Source) []Change {
	was, is := positions(prev), positions(cur)
	var out []Change
	for i, s := range prev {
		if u := sourceKey(s.URL); was[u] == i+1 && is[u] == 0 {
			out = append(out, Change{Kind: SourceRemoved, URL: s.URL, From: i + 1})
		}
	}
	for i, s := range cur {
		u := sourceKey(s.URL)
		if is[u] != i+1 {
			continue // a repeat of an earlier source
		}
		switch from := was[u]; {
		case from == 0:
			out = append(out, Change{Kind: SourceAdded, URL: s.URL, To: i + 1})
		case from != i+1:
			out = append(out, Change{Kind: SourceMoved, URL: s.URL, From: from, To: i + 1})
		}
	}
	return out
}

// positions maps each source's key to its first 1-based position.
func positions(ss []kisa.Source) map[string]int {
	m := make(map[string]int, len(ss))
	for i, s := range ss {
		if k := sourceKey(s.URL); m[k] == 0 {
			m[k] = i + 1
		}
	}
	return m
}

// sourceKey is a source URL without its fragment (the engine adds text
// highlights there that differ between readings of the same page).
func sourceKey(raw string) string {
	if i := strings.IndexByte(raw, '#'); i >= 0 {
		return raw[:i]
	}
	return raw
}

// cited maps each watched domain cited by r to its best position: the
// first source of that domain, or one past the sources when only an
// inline citation names it. An absent overview cites nothing.
func cited(r Reading, watch []string) map[string]int {
	m := map[string]int{}
	if !r.HasOverview || len(watch) == 0 {
		return m
	}
	for i, s := range r.Sources {
		if d := MatchDomain(s.URL, watch); d != "" && m[d] == 0 {
			m[d] = i + 1
		}
	}
	for _, c := range r.Citations {
		if d := MatchDomain(c.URL, watch); d != "" && m[d] == 0 {
			m[d] = len(r.Sources) + 1
		}
	}
	return m
}

// MatchDomain returns the watched domain that the host of rawURL is, or
// is a subdomain of ("" when none): blog.example.com matches example.com,
// notexample.com does not.
func MatchDomain(rawURL string, watch []string) string {
	h := Host(rawURL)
	if h == "" {
		return ""
	}
	for _, d := range watch {
		if h == d || strings.HasSuffix(h, "."+d) {
			return d
		}
	}
	return ""
}

// Host is the lower-cased host name of a URL, without a trailing dot.
func Host(rawURL string) string {
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
}

// maxWords bounds the words Similarity compares of each text.
const maxWords = 2000

// Similarity is how alike two texts are, from 0 (nothing in common) to 1
// (the same words in the same order, case and punctuation aside): one
// minus the word-level edit distance over the longer text's word count.
// Only the first maxWords words of each count.
func Similarity(a, b string) float64 {
	wa, wb := words(a), words(b)
	if len(wa) == 0 && len(wb) == 0 {
		return 1
	}
	return 1 - float64(editDistance(wa, wb))/float64(max(len(wa), len(wb)))
}

func words(s string) []string {
	w := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) })
	return w[:min(len(w), maxWords)]
}

// editDistance is the Levenshtein distance between two word lists.
func editDistance(a, b []string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
