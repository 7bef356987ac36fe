package assistants

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"github.com/PuerkitoBio/goquery"
	"github.com/kisa-dev/kisa"
)

// reading is what one engine's reader knows of its page beyond its Hooks.
type reading struct {
	hooks Hooks
	// turns finds the conversation's answers in order.
	turns func(doc *goquery.Document) []turn
	// citation is the selector of an inline citation inside an answer,
	// and ref reads one.
	citation string
	ref      func(s *goquery.Selection) ref
	// skip matches the parts of an answer that are interface, never
	// answer: controls, hidden labels, the engine's own status lines.
	skip string
	// lines matches the text of a block that is an interface line of the
	// engine (a model's byline), dropped from the answer.
	lines *regexp.Regexp
	// sources reads the sources the page lists for a turn, in order.
	sources func(doc *goquery.Document, t turn) []kisa.Source
	// model and queries read the model and the web searches a turn shows
	// (nil when the engine shows none).
	model   func(t turn) string
	queries func(t turn) []string
}

// turn is one answer of the page: the prompt it answers, its answer
// content and the element that holds both (where its sources, model and
// streaming sign are found).
type turn struct {
	prompt string
	answer *goquery.Selection
	box    *goquery.Selection
	last   bool
}

// ref is what the page says of one inline citation: its link, its label,
// and the 1-based position in the sources list it names (0 when none).
type ref struct {
	url, title, source, favicon string
	index                       int
}

// skipAlways are the parts of any answer that are never its text.
const skipAlways = `script, style, template, noscript, svg, img, button, input, textarea, select, mat-icon, ` +
	`[role="button"], [aria-hidden="true"], .sr-only, [hidden], [style*="display:none"], [style*="display: none"]`

// read reads page with r: the answers in order, the first inline and
// the others in Turns. A page without an answer it can read is refused:
// behind a human check, a sign-in wall or a usage limit (kisa.Blocked),
// with the engine's own error (kisa.Unavailable), or else
// kisa.Unrecognised.
func read(page string, r reading) (kisa.Answer, error) {
	res := kisa.Answer{AnswerTurn: emptyTurn(), Turns: []kisa.AnswerTurn{}}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(page))
	if err != nil {
		return res, fmt.Errorf("assistants: parse %s page: %w", r.hooks.Engine, err)
	}
	var turns []kisa.AnswerTurn
	for _, t := range r.turns(doc) {
		if at, ok := r.readTurn(doc, t); ok {
			turns = append(turns, at)
		}
	}
	if len(turns) == 0 {
		return res, r.noAnswer(doc)
	}
	res.HasAnswer = true
	res.AnswerTurn = turns[0]
	res.Turns = append(res.Turns, turns[1:]...)
	return res, nil
}

// noAnswer says why a page without a readable answer has none. A human
// check is looked for only here: the engines embed invisible checks
// (Turnstile) in pages that answer.
func (r reading) noAnswer(doc *goquery.Document) error {
	h := r.hooks
	switch {
	case humanCheck(doc):
		return &kisa.Error{Failure: kisa.Blocked, Message: h.Engine + " asked for a human check; try again later"}
	case matches(doc, h.UsageLimit) || startsWithAny(pageText(doc), UsageLimitPhrases):
		return &kisa.Error{Failure: kisa.Blocked, Message: h.Engine + " says the visitor's messages are spent; try again later"}
	case matches(doc, h.SignInWall):
		return &kisa.Error{Failure: kisa.Blocked, Message: h.Engine + " asks to sign in before it answers; try again later"}
	case matches(doc, h.ErrorState) || startsWithAny(pageText(doc), ErrorPhrases):
		return &kisa.Error{Failure: kisa.Unavailable, Message: h.Engine + " answered with its own error; try again shortly"}
	}
	return fmt.Errorf("%w: %s page with no answer the %s reading reads", kisa.Unrecognised, h.Engine, h.Engine)
}

// humanCheck reports whether the page is a human check.
func humanCheck(doc *goquery.Document) bool {
	if doc.Find(HumanCheck).Length() > 0 {
		return true
	}
	title := normalise(doc.Find("title").First().Text())
	return startsWithAny(title, HumanCheckTitles)
}

// matches reports whether sel is set and matches in doc.
func matches(doc *goquery.Document, sel string) bool {
	return sel != "" && doc.Find(sel).Length() > 0
}

// pageText is the text of the page's notices: its alerts, dialogs and
// main area, for the phrase guards.
func pageText(doc *goquery.Document) []string {
	var out []string
	doc.Find(`[role="alert"], [role="dialog"], [role="status"], main, h1, h2`).Each(func(_ int, s *goquery.Selection) {
		out = append(out, normalise(s.Text()))
	})
	return out
}

// startsWithAny reports whether one of texts starts with, or holds as a
// sentence, one of phrases (case-insensitively).
func startsWithAny[T string | []string](texts T, phrases []string) bool {
	var list []string
	switch v := any(texts).(type) {
	case string:
		list = []string{v}
	case []string:
		list = v
	}
	for _, t := range list {
		lt := strings.ToLower(t)
		for _, p := range phrases {
			lp := strings.ToLower(p)
			if strings.HasPrefix(lt, lp) || strings.Contains(lt, ". "+lp) || strings.Contains(lt, "\n"+lp) {
				return true
			}
		}
	}
	return false
}

// readTurn reads one turn; ok is false when its answer holds no text.
func (r reading) readTurn(doc *goquery.Document, t turn) (kisa.AnswerTurn, bool) {
	at := emptyTurn()
	var sources []kisa.Source
	if r.sources != nil {
		sources = r.sources(doc, t)
	}
	w := newWalker(r, sources)
	t.answer.Each(func(_ int, s *goquery.Selection) { w.read(s) })
	blocks := w.finish()
	if len(blocks) == 0 {
		return at, false
	}
	at.Query = t.prompt
	at.Complete = !r.streaming(doc, t)
	at.Sources = markCited(sources, w.cites)
	if len(sources) == 0 {
		at.Sources = sourcesFromCitations(w.cites)
	}
	enrichCitations(w.cites, at.Sources)
	var texts []string
	for _, b := range blocks {
		texts = append(texts, b.text.String())
		at.Paragraphs = append(at.Paragraphs, kisa.Paragraph{Text: b.text.String(), Citations: w.citationsOf(b.refs)})
	}
	at.Text = strings.Join(texts, "\n")
	at.Markdown = markdownOf(blocks)
	at.Citations = w.cites
	if r.model != nil {
		at.Model = r.model(t)
	}
	if r.queries != nil {
		at.SearchQueries = r.queries(t)
	}
	return at, true
}

// streaming reports whether t's answer was still being written: the
// Streaming hook inside the turn, or, for the last turn, the Stop control
// on the page.
func (r reading) streaming(doc *goquery.Document, t turn) bool {
	h := r.hooks
	if h.Streaming != "" && (t.box.Is(h.Streaming) || t.box.Find(h.Streaming).Length() > 0) {
		return true
	}
	return t.last && matches(doc, h.Stop)
}

// emptyTurn is a turn without answer, with empty (never nil) lists.
func emptyTurn() kisa.AnswerTurn {
	return kisa.AnswerTurn{Paragraphs: []kisa.Paragraph{}, Citations: []kisa.Citation{},
		Sources: []kisa.Source{}, RelatedLinks: []kisa.Link{}}
}

// markCited numbers sources by their place in the list and sets Cited:
// whether a citation points at the source, by URL or by the position it
// names.
func markCited(sources []kisa.Source, cites []kisa.Citation) []kisa.Source {
	cited := map[string]bool{}
	for _, c := range cites {
		cited[urlKey(c.URL)] = true
	}
	out := make([]kisa.Source, 0, len(sources))
	for i, s := range sources {
		s.Position = i + 1
		yes := cited[urlKey(s.URL)]
		s.Cited = &yes
		out = append(out, s)
	}
	return out
}

// sourcesFromCitations lists the pages the citations link as the sources
// of a page that shows no other list of them, each cited; a citation that
// names a site without linking it (a chip whose list is not open) is no
// source.
func sourcesFromCitations(cites []kisa.Citation) []kisa.Source {
	out := make([]kisa.Source, 0, len(cites))
	for _, c := range cites {
		if c.URL == "" {
			continue
		}
		yes := true
		out = append(out, kisa.Source{URL: c.URL, Title: c.Title, Source: c.Source, Icon: c.Favicon,
			Position: len(out) + 1, Cited: &yes})
	}
	return out
}

// enrichCitations fills what a citation's chip does not show (its page's
// title, its site, its icon) from the source of the same URL.
func enrichCitations(cites []kisa.Citation, sources []kisa.Source) {
	byURL := map[string]kisa.Source{}
	for _, s := range sources {
		byURL[urlKey(s.URL)] = s
	}
	for i := range cites {
		s, ok := byURL[urlKey(cites[i].URL)]
		if !ok {
			continue
		}
		cites[i].Title = firstOf(cites[i].Title, s.Title)
		cites[i].Source = firstOf(cites[i].Source, s.Source)
		cites[i].Favicon = firstOf(cites[i].Favicon, s.Icon)
	}
}

// urlKey is the form of a URL two links are compared by: without the
// engines' own tracking parameter, the fragment and a trailing slash.
func urlKey(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" {
		return strings.TrimSpace(raw)
	}
	u.Fragment = ""
	u.Host = strings.TrimPrefix(strings.ToLower(u.Host), "www.")
	u.Scheme = ""
	u.RawQuery = cleanQuery(u.Query()).Encode()
	return strings.TrimSuffix(u.String(), "/")
}

// cleanURL is the link a page gives, without the tracking parameter the
// engine adds to it (utm_source=chatgpt.com, perplexity, copilot...).
func cleanURL(raw string) string {
	raw = strings.TrimSpace(raw)
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return ""
	}
	q := u.Query()
	if _, ok := q["utm_source"]; ok {
		u.RawQuery = cleanQuery(q).Encode()
	}
	return u.String()
}

// cleanQuery drops the utm_source parameter the engines add.
func cleanQuery(q url.Values) url.Values {
	q.Del("utm_source")
	return q
}

// siteOf is the host name of a URL without "www.".
func siteOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
}

// normalise collapses runs of white space into single spaces and trims.
func normalise(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// firstOf returns the first non-empty string.
func firstOf(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// textOf is the normalised text of sel without its skipped parts.
func textOf(sel *goquery.Selection) string {
	c := sel.Clone()
	c.Find(skipAlways).Remove()
	return normalise(c.Text())
}

// sourceList collects a turn's sources in the page's order, each page
// once.
type sourceList struct {
	out  []kisa.Source
	seen map[string]bool
}

// add appends s unless it has no URL or its page is listed already.
func (l *sourceList) add(s kisa.Source) {
	if s.URL == "" || l.seen[urlKey(s.URL)] {
		return
	}
	if l.seen == nil {
		l.seen = map[string]bool{}
	}
	l.seen[urlKey(s.URL)] = true
	l.out = append(l.out, s)
}

// markLast marks the last of turns as the page's last answer.
func markLast(turns []turn) []turn {
	if len(turns) > 0 {
		turns[len(turns)-1].last = true
	}
	return turns
}

// linkSource reads one entry of a sources list: a link whose titleSel
// and siteSel parts show the page's title and the site's name.
func linkSource(a *goquery.Selection, titleSel, siteSel string) kisa.Source {
	u := cleanURL(a.AttrOr("href", ""))
	return kisa.Source{URL: u, Title: normalise(a.Find(titleSel).First().Text()),
		Source: firstOf(normalise(a.Find(siteSel).First().Text()), siteOf(u)),
		Icon:   a.Find("img").First().AttrOr("src", "")}
}
