package assistants

import (
	"strconv"
	"strings"

	"github.com/PuerkitoBio/goquery"
	"github.com/kisa-dev/kisa"
)

// Gemini's page (gemini.google.com/app, 2025-2026). No whole saved page
// of it was found; its markup is modelled on the real elements that
// exporters and scrapers read (user-query, model-response, message-content,
// the .markdown panel, source-footnote with data-turn-source-index,
// sources-carousel-inline and source-inline-chip, sources-list and
// browse-item, rich-textarea, the send button, aria-busy while an answer
// streams and the response footer's "complete"); the notices are
// modelled (docs/surfaces.md). A saved answer of January 2026 quoted in
// a public guide shows the markdown panel carrying aria-busy and a
// footnote's sup standing alone beside source-inline-chip-container.
var Gemini = Hooks{
	Engine: "Gemini",
	// A Quill editor inside rich-textarea (contenteditable): typed keys
	// or insertText reach it.
	Composer:       `rich-textarea .ql-editor[contenteditable="true"]`,
	Send:           `button.send-button:not(.stop)`,
	Stop:           `button.send-button.stop, button[aria-label="Stop response"]`,
	Turn:           `.conversation-container`,
	Answer:         `model-response message-content .markdown`,
	Streaming:      `[aria-busy="true"]`,
	Finished:       `.response-footer.complete`,
	SourcesControl: `sources-sidebar-button button`,
	SourcesPanel:   `sources-list`,
	CookieReject:   `form[action$="/save"]:has(input[name="set_eom"][value="true"]) button, button[aria-label="Reject all"]`,
	SignInDismiss:  `mat-dialog-container button[aria-label="Close"], mat-dialog-container button[data-test-id="dismiss-button"]`,
	SignInWall:     `mat-dialog-container:has(a[href*="accounts.google.com"]):not(:has(button[aria-label="Close"], button[data-test-id="dismiss-button"]))`,
	UsageLimit:     `[data-test-id="quota-notice"]`,
	ErrorState:     `model-response [data-test-id="error-message"], .conversation-container .error-message`,
}

// Markup of Gemini's answers beyond its Hooks.
const (
	// geminiCitation is an inline citation: a footnote that numbers its
	// source in the answer's sources list (a sup with
	// data-turn-source-index, wrapped in source-footnote or standing
	// alone), or a chip that names it.
	geminiCitation = `source-footnote, sup[data-turn-source-index], source-inline-chip`
	// geminiSource is one entry of the sources list.
	geminiSource = `sources-list browse-item a[href], sources-list a[href]`
	// geminiModel is the model switcher's button, which names the model.
	geminiModel = `[data-test-id="bard-mode-menu-button"]`
)

// ReadGemini reads a Gemini conversation page: the first answer inline,
// the follow-ups' in Turns. An answer's sources are its sources list
// (shown under the answer or in the side panel once opened); its
// citations resolve against it by the position a footnote numbers or the
// site a chip names. It returns kisa's Blocked for a human check, a
// sign-in wall or a usage limit, Unavailable for Gemini's own error, and
// an error wrapping kisa.Unrecognised for a page with no answer it can
// read.
func ReadGemini(page string) (kisa.Answer, error) {
	return read(page, reading{
		hooks:    Gemini,
		turns:    geminiTurns,
		citation: geminiCitation,
		ref:      geminiRef,
		skip:     `.cdk-visually-hidden, mat-icon, model-thoughts, .thoughts-container, sources-list, response-element`,
		sources:  geminiSources,
		model: func(t turn) string {
			return textOf(t.box.Closest("html").Find(geminiModel).First())
		},
	})
}

// geminiTurns pairs each model-response with the user-query before it.
func geminiTurns(doc *goquery.Document) []turn {
	var out []turn
	prompt := ""
	doc.Find(`user-query, model-response`).Each(func(_ int, s *goquery.Selection) {
		if goquery.NodeName(s) == "user-query" {
			prompt = textOf(s.Find(`.query-text`).First())
			if prompt == "" {
				prompt = textOf(s)
			}
			return
		}
		ans := s.Find(`message-content .markdown`).First()
		if ext := s.Find(`#extended-response-markdown-content`); ext.Length() > 0 {
			ans = ext.First()
		}
		if ans.Length() == 0 {
			return
		}
		box := s.Closest(Gemini.Turn)
		if box.Length() == 0 {
			box = s
		}
		out = append(out, turn{prompt: prompt, answer: ans, box: box})
		prompt = ""
	})
	return markLast(out)
}

// geminiRef reads a citation: the source position a footnote numbers,
// or the site a chip names ("View source details for citation from X").
func geminiRef(s *goquery.Selection) ref {
	if name := goquery.NodeName(s); name == "source-footnote" || name == "sup" {
		n, _ := strconv.Atoi(s.Find(`[data-turn-source-index]`).AddSelection(s).AttrOr("data-turn-source-index", ""))
		if n == 0 {
			return ref{}
		}
		return ref{index: n}
	}
	r := ref{url: cleanURL(s.Find("a[href]").First().AttrOr("href", ""))}
	r.source = normalise(s.Find(`.source-title`).First().Text())
	if r.source == "" {
		label := s.Find(`button[aria-label]`).First().AttrOr("aria-label", "")
		if _, after, ok := strings.Cut(label, "citation from "); ok {
			r.source = strings.TrimSpace(strings.SplitN(after, ". ", 2)[0])
			r.source = strings.TrimSuffix(r.source, ".")
		}
	}
	if r.source == "" {
		r.source = normalise(s.Text())
	}
	return r
}

// geminiSources reads a turn's sources list, or for the last turn the
// side panel's when the list is not inside the turn.
func geminiSources(doc *goquery.Document, t turn) []kisa.Source {
	links := t.box.Find(geminiSource)
	if links.Length() == 0 && t.last {
		links = doc.Find(geminiSource)
	}
	var list sourceList
	links.Each(func(_ int, a *goquery.Selection) { list.add(linkSource(a, ".title", ".domain")) })
	return list.out
}
