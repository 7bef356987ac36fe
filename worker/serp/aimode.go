package serp

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/PuerkitoBio/goquery"
	"github.com/kisa-dev/kisa"
	"golang.org/x/net/html"
)

// Hooks of the AI Mode page (udm=50) around the aimc answers (aimc.go).
const (
	// AIModeTurn is one exchange of the conversation: the prompt and the
	// aimc subtree of its answer.
	AIModeTurn = `[data-scope-id="turn"]`
	// AIModePrompt is the heading of a turn that repeats its prompt;
	// AIModePromptLabel inside it is the "You said:" label before it.
	AIModePrompt      = `[role="heading"][aria-level="2"]`
	AIModePromptLabel = `.iMqumd`
	// AIModeStreaming matches an answer subtree while it is still
	// streaming: the page marks it busy until the answer is whole.
	AIModeStreaming = `[aria-busy="true"]`
	// AIModeUDM is the value of the results page's udm parameter that
	// opens AI Mode.
	AIModeUDM = "50"
	// SearchPath is the path of the search engine's results page.
	SearchPath = `/search`
	// AIModeFollowUp is the box for a follow-up prompt below the answers.
	AIModeFollowUp = `textarea`
	// AIModeNotice is the notice a page shows in place of AI Mode where it
	// is not offered; its text is one of AIModeNotAvailable.
	AIModeNotice = `[role="alert"], [role="main"] h1, [role="main"] h2, #aim-unavailable`
)

// AIModeNotAvailable start the notices that AI Mode is not offered in the
// country or language of the request, in the languages met so far (a
// last guard: AIModeNotice is the hook).
var AIModeNotAvailable = []string{
	"AI Mode is not available in your country",
	"AI Mode isn't available in your country",
	"AI Mode is not available",
	"AI Mode isn't available",
	"Le mode IA n'est pas disponible",
	"Der KI-Modus ist in deinem Land nicht verfügbar",
}

// ExtractAIMode reads an AI Mode page (the whole page's HTML once the
// answers have streamed): the first turn is the answer to the query,
// the others the answers to the follow-ups, in order. Each answer is read
// as the overview is (paragraphs, citations, side panel sources); its
// RelatedLinks are the links in its text that are not among its sources.
//
// A page that says AI Mode is not offered yields HasAnswer false with
// Reason kisa.ReasonNotAvailable. It returns an error wrapping
// kisa.Unrecognised when the page has neither a readable answer nor that
// notice (never a silent empty answer), and a plain error when the page
// cannot be parsed.
func ExtractAIMode(page string) (kisa.Answer, error) {
	return ExtractAIModeAt(page, EngineOrigin)
}

// ExtractAIModeAt is ExtractAIMode of a page whose relative links are
// read against base (the page's address; EngineOrigin when base is not
// absolute).
func ExtractAIModeAt(page, base string) (kisa.Answer, error) {
	res := kisa.Answer{AnswerTurn: emptyTurn(), Turns: []kisa.AnswerTurn{}}
	doc, err := parseAt(page, base)
	if err != nil {
		return res, err
	}
	if notAvailable(doc.Document) {
		res.Reason = kisa.ReasonNotAvailable
		res.Complete = true
		return res, nil
	}
	var turns []kisa.AnswerTurn
	for _, unit := range answerUnits(doc.Document) {
		if t, ok := readTurn(doc, unit); ok {
			turns = append(turns, t)
		}
	}
	if len(turns) == 0 {
		return res, fmt.Errorf("%w: AI Mode page with no answer that the aimc reading reads and no notice", kisa.Unrecognised)
	}
	res.HasAnswer = true
	res.AnswerTurn = turns[0]
	res.Turns = append(res.Turns, turns[1:]...)
	return res, nil
}

// emptyTurn is a turn without answer, with empty (never nil) lists.
func emptyTurn() kisa.AnswerTurn {
	return kisa.AnswerTurn{Paragraphs: []kisa.Paragraph{}, Citations: []kisa.Citation{},
		Sources: []kisa.Source{}, RelatedLinks: []kisa.Link{}}
}

// notAvailable reports whether the page is the notice that AI Mode is not
// offered: a notice element whose text starts with one of
// AIModeNotAvailable, and no answer.
func notAvailable(doc *goquery.Document) bool {
	if doc.Find(AnswerSubtree).Length() > 0 {
		return false
	}
	found := false
	doc.Find(AIModeNotice).EachWithBreak(func(_ int, s *goquery.Selection) bool {
		t := strings.ToLower(normalise(s.Text()))
		for _, p := range AIModeNotAvailable {
			if strings.HasPrefix(t, strings.ToLower(p)) {
				found = true
			}
		}
		return !found
	})
	return found
}

// answerUnits returns the page's turns, or, on a page without turns, its
// outermost answer subtrees.
func answerUnits(doc *goquery.Document) []*goquery.Selection {
	var out []*goquery.Selection
	units := doc.Find(AIModeTurn)
	if units.Length() == 0 {
		units = doc.Find(AnswerSubtree).FilterFunction(func(_ int, s *goquery.Selection) bool {
			return s.ParentsFiltered(AnswerSubtree).Length() == 0
		})
	}
	units.Each(func(_ int, s *goquery.Selection) { out = append(out, s) })
	return out
}

// readTurn reads one turn; ok is false when it holds no answer text.
func readTurn(doc pageDoc, unit *goquery.Selection) (kisa.AnswerTurn, bool) {
	t := emptyTurn()
	box := unit
	if unit.Is(AIModeTurn) {
		if sub := unit.Find(AnswerSubtree).First(); sub.Length() > 0 {
			box = sub
		}
	}
	col := box.Find(aimc.answer).First()
	blocks := aimc.readBlocks(col)
	if len(blocks) == 0 {
		return t, false
	}
	chips, sources := aimc.links(doc, unit)
	var texts []string
	for _, b := range blocks {
		p := kisa.Paragraph{Text: b.text, Citations: citationsOf(b.chips, chips)}
		t.Paragraphs = append(t.Paragraphs, p)
		t.Citations = appendNewCitations(t.Citations, p.Citations)
		texts = append(texts, b.text)
	}
	t.Query = promptOf(unit)
	t.Text = strings.Join(texts, "\n")
	t.Sources = sources
	t.RelatedLinks = relatedLinks(doc, col, sources, t.Citations)
	t.Complete = !box.Is(AIModeStreaming) && box.Find(AIModeStreaming).Length() == 0
	return t, true
}

// promptOf returns the prompt a turn repeats, without its label.
func promptOf(unit *goquery.Selection) string {
	h := unit.Find(AIModePrompt).First().Clone()
	h.Find(AIModePromptLabel).Remove()
	return normalise(h.Text())
}

// relatedLinks returns the web links in the answer's column that are
// neither sources nor citations, once per URL.
func relatedLinks(p pageDoc, col *goquery.Selection, sources []kisa.Source, cites []kisa.Citation) []kisa.Link {
	out := []kisa.Link{}
	seen := map[string]bool{}
	for _, s := range sources {
		seen[s.URL] = true
	}
	for _, c := range cites {
		seen[c.URL] = true
	}
	skip := nodeSet(col.Find(aimc.noText))
	col.Find("a[href]").Each(func(_ int, a *goquery.Selection) {
		u := p.linkOf(a.AttrOr("href", "")).url
		if u == "" || seen[u] || insideSet(a, skip) || isSearchLink(u) || isChipLink(a) {
			return
		}
		seen[u] = true
		out = append(out, kisa.Link{URL: u, Title: firstOf(normalise(a.Text()), normalise(a.AttrOr("aria-label", ""))), Source: domainOf(u)})
	})
	return out
}

// insideSet reports whether s or one of its ancestors is in set.
func insideSet(s *goquery.Selection, set map[*html.Node]bool) bool {
	for n := s.Get(0); n != nil; n = n.Parent {
		if set[n] {
			return true
		}
	}
	return false
}

// isSearchLink reports whether u is a search of the search engine itself
// (a term of the answer linked to its own results page), not a page the
// answer offers.
func isSearchLink(u string) bool {
	p, err := url.Parse(u)
	if err != nil {
		return false
	}
	host := strings.ToLower(p.Hostname())
	return p.Path == SearchPath && (strings.HasPrefix(host, "google.") || strings.Contains(host, ".google."))
}

// isChipLink reports whether a is the link beside a chip's button
// (ChipLink), a citation rather than a related link.
func isChipLink(a *goquery.Selection) bool {
	return a.Is(ChipLink) && a.SiblingsFiltered("button").Length() > 0
}
