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
	// AskOverviewChange, with OverviewChange as its argument: waits in
	// the page until the overview's state differs from Last or WaitMs
	// have passed, and answers the state then (an OverviewState).
	AskOverviewChange = "overviewChange"
	// AskCollapsed: whether the overview's show-more control is collapsed.
	AskCollapsed = "collapsed"
	// AskExpandedChange, with Wait as its argument: waits in the page
	// until the show-more control says it is expanded or WaitMs have
	// passed, and answers whether it is.
	AskExpandedChange = "expandedChange"
	// AskShowMoreBox: the collapsed show-more control's centre {x, y} in
	// viewport pixels, scrolled into view, or null when none is rendered.
	AskShowMoreBox = "showMoreBox"
	// AskOverviewArea: the overview block's {x, y, width, height} in page
	// pixels, or null.
	AskOverviewArea = "overviewArea"
	// AskPageArea: the whole page's {x, y, width, height}.
	AskPageArea = "pageArea"
	// AskConversation: AI Mode's {box, turns, busy, done, marked, sig}:
	// the prompt box is there, the number of turns, one still streams
	// (marked busy, or the last one shows a status of OverviewStatuses),
	// the last answer shows its AIModeAnswerActions, it stands in the
	// AnswerSubtree that shows them, and a signature of the last turn's
	// answer text ("" while it is empty).
	AskConversation = "conversation"
	// AskFollowLinks, with FollowLinks as its argument: requests each URL
	// from the page (credentials included) and answers how many answered
	// within WaitMs; the browser learns the redirects' targets meanwhile.
	AskFollowLinks = "followLinks"
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
		"overviewLoaded":    OverviewLoaded,
		"overviewHeading":   OverviewHeading,
		"overviewHeadings":  OverviewHeadings,
		"overviewStatuses":  OverviewStatuses,
		"overviewNotices":   OverviewNotices,
		"overviewNotice":    OverviewNotice,
		"overviewBusy":      OverviewBusy,
		"notContent":        NotContent,
		"showMore":          ShowMore,
		"showMoreCollapsed": ShowMoreCollapsed,
		"aiModeTurn":        AIModeTurn,
		"aiModeStreaming":   AIModeStreaming,
		"aiModeFollowUp":    AIModeFollowUp,
		"answerSubtree":     AnswerSubtree,
		"aiModeActions":     AIModeAnswerActions,
	}
}

// OverviewState is the overview's state as AskOverviewChange answers it.
type OverviewState struct {
	// Sig is "" while an overview is announced (its block, or its heading
	// naming it or showing a status of OverviewStatuses) but has no answer
	// text yet or the page is still loading, "absent" when the loaded page
	// has none, else a signature (length and hash) of the answer's text:
	// the text of OverviewBody outside NotContent (headings, status lines,
	// hidden parts and controls are not the answer).
	Sig string `json:"sig"`
	// Loaded is whether the page has marked the overview as finished
	// (OverviewLoaded): the end of its answer, decided by the page.
	Loaded bool `json:"loaded"`
	// Marked is whether the overview stands in a container
	// (OverviewContainer), which the page marks loaded when the answer
	// has ended: the real pages of every generation met do.
	Marked bool `json:"marked"`
	// Busy is whether the page shows the answer still being made: a part
	// of the block matching OverviewBusy, or a status line of
	// OverviewStatuses in the block or its heading.
	Busy bool `json:"busy"`
	// Notice is whether the block shows that the engine gave up: its
	// whole answer text is one of OverviewNotices, or it renders one of
	// its OverviewNotice elements (in any language). The block is
	// finished.
	Notice bool `json:"notice"`
}

// OverviewChange is the argument of AskOverviewChange.
type OverviewChange struct {
	// Last is the state answered before; nil answers at the first look.
	Last *OverviewState `json:"last"`
	// WaitMs bounds the wait in milliseconds.
	WaitMs int64 `json:"waitMs"`
}

// FollowLinks is the argument of AskFollowLinks.
type FollowLinks struct {
	// URLs are the links to request, absolute.
	URLs []string `json:"urls"`
	// WaitMs bounds the wait in milliseconds.
	WaitMs int64 `json:"waitMs"`
}

// Wait is the argument of questions that only take a bound.
type Wait struct {
	// WaitMs bounds the wait in milliseconds.
	WaitMs int64 `json:"waitMs"`
}

// PageScript returns the JavaScript expression that asks page.js question
// (one of the Ask* constants) with PageSelectors and the question's
// argument, if it takes one, for the browser to evaluate in the page.
// Questions that wait answer a promise.
func PageScript(question string, arg ...any) string {
	sel, _ := json.Marshal(PageSelectors()) // strings and lists of strings always encode
	q, _ := json.Marshal(question)
	a := []byte("null")
	if len(arg) > 0 {
		var err error
		if a, err = json.Marshal(arg[0]); err != nil {
			panic("serp: a question's argument does not encode: " + err.Error())
		}
	}
	return "(" + pageJS + ")(" + string(sel) + ", " + string(q) + ", " + string(a) + ")"
}
