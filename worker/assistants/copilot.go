package assistants

import (
	"github.com/PuerkitoBio/goquery"
	"github.com/kisa-dev/kisa"
)

// Copilot's page (copilot.microsoft.com, 2025-2026). No saved page of it
// was found; the messages (data-content="user-message" and "ai-message",
// data-message-author="bot"), the message item inside an answer, the
// composer (a native textarea, #userInput, its placeholder translated) and
// a send button known only as the form's submit button are the real hooks
// that exporters and scrapers read (a survey of them of July 2026 lists
// them and finds no streaming attribute: the scrapers wait for the text to
// stop changing, and so must the browser, Finished being modelled). The
// citation links, the action bar, the sources panel, the stop button and
// the notices are modelled (docs/surfaces.md).
var Copilot = Hooks{
	Engine: "Copilot",
	// A native textarea under React: typed keys reach it; a value written
	// by script is ignored unless set through the prototype's setter.
	Composer:       `textarea#userInput, textarea[data-testid="composer-input"]`,
	Send:           `button[type="submit"]`,
	Stop:           `button[data-testid="stop-button"]`,
	Turn:           `[data-content="ai-message"]`,
	Answer:         `[data-content="ai-message"] [class~="group/ai-message-item"]`,
	Streaming:      `[aria-busy="true"], [data-is-typing="true"], [data-testid="typing-indicator"]`,
	Finished:       `[data-testid="message-actions"] [data-testid="copy-message-button"]`,
	SourcesControl: `[data-testid="message-actions"] button[data-testid="sources-button"]`,
	SourcesPanel:   `[data-testid="sources-panel"]`,
	CookieReject:   `#onetrust-reject-all-handler, [data-testid="cookie-banner"] button[data-testid="reject-button"]`,
	SignInDismiss:  `[role="dialog"] button[data-testid="close-button"]`,
	SignInWall:     `[role="dialog"]:has([data-testid="sign-in-button"]):not(:has([data-testid="close-button"]))`,
	UsageLimit:     `[data-testid="usage-limit-notice"]`,
	ErrorState:     `[data-content="ai-message"] [data-testid="error-message"]`,
}

// Markup of Copilot's answers beyond its Hooks.
const (
	// copilotPrompt is a prompt as the page repeats it.
	copilotPrompt = `[data-content="user-message"]`
	// copilotCitation is an inline citation: a link pill with the site's
	// name.
	copilotCitation = `a[data-testid="citation-link"]`
	// copilotSource is one entry of an answer's sources panel.
	copilotSource = `[data-testid="sources-panel"] a[href]`
)

// ReadCopilot reads a Copilot conversation page: the first answer inline,
// the follow-ups' in Turns. An answer's sources are its sources panel
// once opened, else the pages its citations link. It returns kisa's
// Blocked for a human check, a sign-in wall or a usage limit, Unavailable
// for Copilot's own error, and an error wrapping kisa.Unrecognised for a
// page with no answer it can read.
func ReadCopilot(page string) (kisa.Answer, error) {
	return read(page, reading{
		hooks:    Copilot,
		turns:    copilotTurns,
		citation: copilotCitation,
		ref: func(s *goquery.Selection) ref {
			u := cleanURL(s.AttrOr("href", ""))
			return ref{url: u, source: firstOf(textOf(s), siteOf(u)), title: normalise(s.AttrOr("title", ""))}
		},
		skip: `[data-testid="message-actions"], [data-testid="sources-panel"]`,
		sources: func(_ *goquery.Document, t turn) []kisa.Source {
			var list sourceList
			t.box.Find(copilotSource).Each(func(_ int, a *goquery.Selection) {
				list.add(linkSource(a, ".source-title", ".source-site"))
			})
			return list.out
		},
	})
}

// copilotTurns pairs each answer with the prompt before it.
func copilotTurns(doc *goquery.Document) []turn {
	var out []turn
	prompt := ""
	doc.Find(copilotPrompt + `, ` + Copilot.Turn).Each(func(_ int, s *goquery.Selection) {
		if s.Is(copilotPrompt) {
			prompt = textOf(s)
			return
		}
		ans := s.Find(`[class~="group/ai-message-item"]`)
		if ans.Length() == 0 {
			return
		}
		out = append(out, turn{prompt: prompt, answer: ans, box: s})
		prompt = ""
	})
	return markLast(out)
}
