package monitor

import (
	"cmp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// folded is a text folded for matching: its runes lower-cased, without
// accents (combining marks) and in their compatibility forms (full-width
// letters, ligatures), and for each folded rune the byte offset in the
// original text of the rune it came from (one past the end last).
type folded struct {
	runes  []rune
	origin []int
}

// fold folds s: NFKD, combining marks dropped, lower case, ß as ss, and
// typographic apostrophes as '.
func fold(s string) folded {
	f := folded{runes: make([]rune, 0, len(s)), origin: make([]int, 0, len(s)+1)}
	for i, r := range s {
		if r < utf8.RuneSelf {
			f.runes = append(f.runes, unicode.ToLower(r))
			f.origin = append(f.origin, i)
			continue
		}
		for _, d := range norm.NFKD.String(string(r)) {
			switch {
			case unicode.Is(unicode.Mn, d):
				continue
			case d == 'ß' || d == 'ẞ':
				f.runes = append(f.runes, 's', 's')
				f.origin = append(f.origin, i, i)
				continue
			case d == '’' || d == 'ʼ' || d == '‘':
				d = '\''
			}
			f.runes = append(f.runes, unicode.ToLower(d))
			f.origin = append(f.origin, i)
		}
	}
	f.origin = append(f.origin, len(s))
	return f
}

// isWordRune is a letter or a digit: what a name may not be glued to.
func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }

// unspaced are the scripts written without spaces between words (and
// Hangul, whose particles attach to the word): a name in them, or a name
// beside a letter of them, matches as a substring.
var unspaced = []*unicode.RangeTable{unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul,
	unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar, unicode.Tibetan}

func isUnspaced(r rune) bool { return unicode.In(r, unspaced...) }

// arabicProclitics are the prefixes Arabic writes joined to the next word
// ("and", "with", "for", "like", "so", the article and their pairs): a
// name in Arabic script matches after them.
var arabicProclitics = []string{"و", "ف", "ب", "ل", "ك", "ال", "وال", "بال", "فال", "كال", "لل", "وب", "ول", "وك", "فب", "فل"}

// glued reports whether a name whose edge rune is edge touches the
// neighbouring rune next in the text: both word runes of scripts written
// with spaces (the name would be part of a longer word).
func glued(edge, next rune) bool {
	return isWordRune(next) && !isUnspaced(next) && !isUnspaced(edge)
}

// hit is one occurrence of a brand's name or alias in a folded text:
// runes [start, end).
type hit struct{ brand, start, end int }

// pattern is a folded name or alias of brand.
type pattern struct {
	brand int
	runes []rune
}

// patterns folds every name and alias of brands.
func patterns(brands []Brand) []pattern {
	var out []pattern
	for i, b := range brands {
		for _, n := range b.names() {
			if r := fold(n).runes; len(r) > 0 {
				out = append(out, pattern{brand: i, runes: r})
			}
		}
	}
	return out
}

// matches finds the brands' names and aliases in t as whole words or
// phrases (see Measure), the longest first where two overlap, in text
// order.
func matches(t folded, ps []pattern) []hit {
	var all []hit
	for _, p := range ps {
		for i := 0; i+len(p.runes) <= len(t.runes); i++ {
			if slices.Equal(t.runes[i:i+len(p.runes)], p.runes) && bounded(t.runes, i, i+len(p.runes), p.runes) {
				all = append(all, hit{brand: p.brand, start: i, end: i + len(p.runes)})
			}
		}
	}
	slices.SortFunc(all, func(a, b hit) int { return cmp.Or(a.start-b.start, (b.end-b.start)-(a.end-a.start)) })
	var out []hit
	end := 0
	for _, h := range all {
		if h.start >= end {
			out = append(out, h)
			end = h.end
		}
	}
	return out
}

// bounded reports whether name at runes [i, j) of text stands as a word:
// not glued to a word rune before or after it (possessives such as
// "Nike's" count, "Nikes" does not), an Arabic proclitic before it
// allowed.
func bounded(text []rune, i, j int, name []rune) bool {
	if i > 0 && glued(name[0], text[i-1]) && !afterProclitic(text, i, name[0]) {
		return false
	}
	return j == len(text) || !glued(name[len(name)-1], text[j])
}

// afterProclitic reports whether the word rune before text[i] ends an
// Arabic proclitic that begins a word, and name begins in Arabic script.
func afterProclitic(text []rune, i int, first rune) bool {
	if !unicode.Is(unicode.Arabic, first) {
		return false
	}
	k := i
	for k > 0 && isWordRune(text[k-1]) {
		k--
	}
	return slices.Contains(arabicProclitics, string(text[k:i]))
}

// interfaceStrings are labels that answer pages print around an answer
// and readers may carry into its text: they are removed before matching,
// so that a brand named in them ("Gemini can make mistakes") is not a
// mention.
var interfaceStrings = []string{
	"AI Overview", "AI Mode", "AI responses may include mistakes", "Show more", "Show all", "Learn more",
	"ChatGPT can make mistakes. Check important info.", "ChatGPT can make mistakes",
	"Gemini can make mistakes, so double-check it", "Gemini can make mistakes",
	"Copilot may make mistakes", "Ask anything", "Ask a follow-up",
}

// answerText is text with the interface strings blanked (kept the same
// length, so that offsets stay those of text).
func answerText(text string) string {
	for _, s := range interfaceStrings {
		if strings.Contains(text, s) {
			text = strings.ReplaceAll(text, s, strings.Repeat(" ", len(s)))
		}
	}
	return text
}
