package serp

import (
	_ "embed" // page.js
	"encoding/json"
)

// pageJS is page.js: one function of (selectors, question).
//
//go:embed page.js
var pageJS string

// The questions page.js answers; PageScript asks them.
const (
	// AskInspect: {url, consent, captcha}, the page after a navigation.
	AskInspect = "inspect"
	// AskRejectConsent: submit the consent page's reject-all form; false
	// when there is none.
	AskRejectConsent = "rejectConsent"
	// AskOverview: "" while an overview is announced but empty, "absent"
	// when the loaded page has none, else a signature of its text.
	AskOverview = "overview"
	// AskCollapsed: whether the overview's show-more control is collapsed.
	AskCollapsed = "collapsed"
	// AskExpanded: whether the show-more control says it is expanded.
	AskExpanded = "expanded"
	// AskOverviewArea: the overview block's {x, y, width, height} in page
	// pixels, or null.
	AskOverviewArea = "overviewArea"
	// AskPageArea: the whole page's {x, y, width, height}.
	AskPageArea = "pageArea"
	// AskConversation: AI Mode's {box, turns, busy, sig}: the prompt box
	// is there, the number of turns, one still streams, and a signature
	// of the last turn's answer text ("" while it is empty).
	AskConversation = "conversation"
)

// ConsentSubmit is the control inside ConsentRejectForm that submits it.
const ConsentSubmit = `button, input[type="submit"]`

// PageSelectors are the selectors and phrases page.js receives, by the
// name it reads them under (sel.<name>).
func PageSelectors() map[string]any {
	return map[string]any{
		"consentRejectForm": ConsentRejectForm,
		"consentSubmit":     ConsentSubmit,
		"captchaForm":       CaptchaForm,
		"overviewContainer": OverviewContainer,
		"overviewBody":      OverviewBody,
		"overviewHeading":   OverviewHeading,
		"overviewHeadings":  OverviewHeadings,
		"showMore":          ShowMore,
		"showMoreCollapsed": ShowMoreCollapsed,
		"aiModeTurn":        AIModeTurn,
		"aiModeStreaming":   AIModeStreaming,
		"aiModeFollowUp":    AIModeFollowUp,
		"answerSubtree":     AnswerSubtree,
	}
}

// PageScript returns the JavaScript expression that asks page.js question
// (one of the Ask* constants) with PageSelectors, for the browser to
// evaluate in the page.
func PageScript(question string) string {
	sel, _ := json.Marshal(PageSelectors()) // strings and lists of strings always encode
	q, _ := json.Marshal(question)
	return "(" + pageJS + ")(" + string(sel) + ", " + string(q) + ")"
}
