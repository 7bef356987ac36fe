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
	// AIModeFollowUp is AI Mode's prompt box (its composer, below the
	// answers), where the first prompt and the follow-ups are typed: the
	// textarea of its input plate; on a page without the plate, the first
	// plain textarea, which is neither the search box at the top of the
	// page (named q, a combobox) nor a feedback form's (a textbox).
	AIModeFollowUp = `[data-xid="aim-mars-input-plate"] textarea, textarea:not([role]):not([name="q"])`
	// AnswerLead is the lead of an answer's text inside its aimc subtree
	// (the first words, or an empty element before them).
	AnswerLead = `[data-subtree="aimfl"]`
	// FormControl is a control of a form inside an answer (its feedback
	// form): what stands around one is not the answer (structuralColumn).
	FormControl = `textarea, input, select`
	// PanelEntryLink is the link of an entry of a side panel of sources
	// on a page without the panel's classes: a labelled link in a list
	// item (see isPanelLink).
	PanelEntryLink = `li a[href][aria-label]`
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
	units := answerUnits(doc.Document)
	prompts := promptsBefore(doc.Document, units)
	for _, unit := range units {
		if t, ok := readTurn(doc, unit); ok {
			t.Query = firstOf(t.Query, prompts[unit.Get(0)])
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
	var blocks []block
	var skip []*html.Node
	if col.Length() > 0 {
		blocks = aimc.readBlocks(col)
	} else {
		var st structure
		col, st = structuralColumn(box)
		blocks = aimc.readBlocksWith(col, st.paragraphs, st.controls)
		skip = st.controls
	}
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
	t.RelatedLinks = relatedLinks(doc, col, sources, t.Citations, skip...)
	t.Complete = !box.Is(AIModeStreaming) && box.Find(AIModeStreaming).Length() == 0
	return t, true
}

// promptsBefore returns, for answer units that are not whole turns (a
// page without the turns' markers), the prompt heading (AIModePrompt)
// that stands last before each outside every answer, by unit.
func promptsBefore(doc *goquery.Document, units []*goquery.Selection) map[*html.Node]string {
	out := map[*html.Node]string{}
	want := map[*html.Node]bool{}
	for _, u := range units {
		if !u.Is(AIModeTurn) {
			want[u.Get(0)] = true
		}
	}
	if len(want) == 0 {
		return out
	}
	headings := nodeSet(doc.Find(AIModePrompt).FilterFunction(func(_ int, h *goquery.Selection) bool {
		return h.ParentsFiltered(AnswerSubtree).Length() == 0
	}))
	last := ""
	for n := doc.Get(0); n != nil; n = next(n) {
		switch {
		case headings[n]:
			last = promptText(goquery.NewDocumentFromNode(n).Selection)
		case want[n]:
			out[n], last = last, ""
		}
	}
	return out
}

// promptOf returns the prompt a turn repeats, without its label.
func promptOf(unit *goquery.Selection) string {
	return promptText(unit.Find(AIModePrompt).First())
}

// promptText is the text of a prompt heading without its label: the
// AIModePromptLabel element, or, on a page without classes, a first
// child element whose text ends in a colon ("You said:") before others.
func promptText(h *goquery.Selection) string {
	h = h.Clone()
	h.Find(AIModePromptLabel).Remove()
	if kids := h.Children(); kids.Length() > 1 && strings.HasSuffix(normalise(kids.First().Text()), ":") {
		kids.First().Remove()
	}
	return normalise(h.Text())
}

// relatedLinks returns the web links in the answer's column that are
// neither sources nor citations, once per URL.
func relatedLinks(p pageDoc, col *goquery.Selection, sources []kisa.Source, cites []kisa.Citation, noText ...*html.Node) []kisa.Link {
	out := []kisa.Link{}
	seen := map[string]bool{}
	for _, s := range sources {
		seen[s.URL] = true
	}
	for _, c := range cites {
		seen[c.URL] = true
	}
	skip := nodeSet(col.Find(aimc.noText).AddNodes(noText...))
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

// structure is what the structure of an answer's column tells: its
// paragraphs, and the parts around form controls (the feedback form)
// that are not its text.
type structure struct {
	paragraphs, controls []*html.Node
}

// structuralColumn finds the answer's column of an aimc subtree by its
// structure alone, for a page without the column's class and container id
// (a page saved without them): the highest element above the answer's
// lead (AnswerLead) that holds no entry of the side panel. Its paragraphs
// are the div and p elements that hold words of their own; the largest
// element around a form control (textarea, input) that holds neither the
// lead nor a heading or a list item is not text. It returns an empty
// selection when the subtree has no lead.
func structuralColumn(box *goquery.Selection) (*goquery.Selection, structure) {
	lead := box.Find(AnswerLead).First()
	if lead.Length() == 0 {
		return lead, structure{}
	}
	col := lead
	for p := lead.Parent(); p.Length() > 0 && !holdsPanelEntry(p); p = p.Parent() {
		col = p
		if p.IsSelection(box) {
			break
		}
	}
	var st structure
	col.Find("div, p").Each(func(_ int, s *goquery.Selection) {
		if ownWords(s.Get(0)) {
			st.paragraphs = append(st.paragraphs, s.Get(0))
		}
	})
	col.Find(FormControl).Each(func(_ int, c *goquery.Selection) {
		top := c
		for p := c.Parent(); p.Length() > 0 && !p.IsSelection(col) && p.Has(AnswerLead+`, [role="heading"], li`).Length() == 0 &&
			!p.Is(AnswerLead); p = p.Parent() {
			top = p
		}
		st.controls = append(st.controls, top.Get(0))
	})
	return col, st
}

// ownWords reports whether n holds a text with words of its own (not
// only in its child elements).
func ownWords(n *html.Node) bool {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.TextNode && hasWord(c.Data) {
			return true
		}
	}
	return false
}

// holdsPanelEntry reports whether s holds an entry of a side panel of
// sources.
func holdsPanelEntry(s *goquery.Selection) bool {
	return s.Find(PanelEntryLink).FilterFunction(func(_ int, a *goquery.Selection) bool { return isPanelLink(a) }).Length() > 0
}

// isPanelLink reports whether a is the link of a side panel entry found
// by structure: a labelled link in a list item, not beside a chip's
// button.
func isPanelLink(a *goquery.Selection) bool {
	return a.SiblingsFiltered("button").Length() == 0
}
