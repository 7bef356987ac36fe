// Package serp knows the search engine's pages. Every selector and
// phrase the worker relies on lives in this package: the hooks every
// generation of the results page shares in this file, each generation of
// the AI overview's markup in a file of its own (aimc.go, gen2025.go, see
// generation.go), AI Mode's page in aimode.go and the organic results in
// web.go. The browser's in-page checks use the same constants.
// Extraction (HTML to kisa.Overview, kisa.Answer, kisa.WebResults)
// is a pure function per surface, tested on the saved pages in testdata/
// and serpfixture/captured.
package serp

// Hooks of the results page that every generation shares. Google changes
// them; keep them here and nowhere else.
const (
	// OverviewContainer is the AI overview block.
	OverviewContainer = `div[jscontroller="EYwa3d"]`
	// OverviewBody is the overview's content inside its container; the
	// show-more control names it in aria-controls.
	OverviewBody = `#m-x-content`
	// OverviewLoaded matches the container once its answer has finished
	// streaming (the page sets data-loaded then).
	OverviewLoaded = `[data-loaded]`
	// NotContent are the parts of an overview block that are never its
	// answer, in any generation and any language: controls, headings,
	// hidden parts, status lines of a placeholder ("Searching..."), links
	// and images. Text of the block outside them that no generation reads
	// means the page's markup is unknown (kisa.Unrecognised).
	NotContent = `script, style, template, noscript, svg, img, g-img, button, a, h1, ` +
		`[role="button"], [role="heading"], [role="dialog"], [role="status"], [role="progressbar"], ` +
		`[aria-live], [aria-busy="true"], [aria-hidden="true"]:not([ahbak]), ` +
		`[style*="display:none"], [style*="display: none"]`
	// ShowMore is the control that expands a collapsed overview; its
	// aria-expanded attribute says whether it is expanded.
	ShowMore = `[role="button"][aria-controls="m-x-content"][aria-expanded]`
	// ShowMoreCollapsed matches ShowMore only while the overview is collapsed.
	ShowMoreCollapsed = `[role="button"][aria-controls="m-x-content"][aria-expanded="false"]`
	// ResultsReady appears once the results page has painted its results.
	ResultsReady = `#search, #rso, #main`
	// CaptchaPath is the path prefix of the "unusual traffic" page.
	CaptchaPath = `/sorry/`
	// CaptchaForm is the CAPTCHA form of the "unusual traffic" page.
	CaptchaForm = `#captcha-form, form[action*="/sorry/"]`
	// ConsentHostPrefix starts the host name of the consent interstitial.
	ConsentHostPrefix = `consent.`
	// ConsentRejectForm is the consent page's reject-all form: the form
	// posting to /save whose hidden set_eom input is "true".
	ConsentRejectForm = `form[action$="/save"]:has(input[name="set_eom"][value="true"])`
)

// Signs of an answer still being made, and of its end, that the browser
// waits on (page.js): the page says when it is done.
const (
	// OverviewBusy matches, in the overview's block, a part that shows
	// the answer is still being made: one marked busy, a progress bar.
	// Besides it, a status line of OverviewStatuses in the block or its
	// heading says so.
	OverviewBusy = `[aria-busy="true"], [role="progressbar"]`
	// AIModeAnswerActions are the feedback buttons ("Good response",
	// "Bad response": toggles with aria-pressed) in an AI Mode answer's
	// subtree, which every finished answer of the real conversation shows.
	AIModeAnswerActions = `button[aria-pressed]`
)

// OverviewHeading is the hidden h1 that carries the overview's heading
// (one of OverviewHeadings in the languages met so far).
const OverviewHeading = `h1`

// OverviewStatuses are the status lines the engine shows in the
// overview's heading (the hidden h1 or the visible one) while it is still
// making the answer, in the languages met; compared ignoring case and
// final full stops or an ellipsis.
var OverviewStatuses = []string{"Searching", "Generating", "Thinking"}

// OverviewNotice matches the overview block's two notices that the engine
// gave up on the answer ("not available for this search", "can't
// generate ... right now"), hidden until it shows one, in every language:
// the real pages of January 2026 (English, desktop), February and April
// 2026 (Swedish, phones) carry both. A block that shows one is finished,
// without an answer (page.js: OverviewState.Notice; Extract: no overview,
// not unknown markup).
const OverviewNotice = `[jsname="lGsj1"], [jsname="L1sC6e"]`

// OverviewNotices are the notices of an overview block whose answer the
// engine gave up on, in the languages met (a last guard beside
// OverviewNotice): English, and Swedish as the real phone pages of
// February and April 2026 (kjellberg/serp_parser) word them.
var OverviewNotices = []string{
	"An AI Overview is not available for this search",
	"Can't generate an AI overview right now. Try again later",
	"En AI-översikt är inte tillgänglig för den här sökningen",
	"Det går inte att generera en AI-översikt just nu. Försök igen senare",
}

// The phrase lists below are a last guard, not the mechanism: the
// structure of each generation tells the answer from the interface in any
// language. They catch an interface line that a changed page moves into
// the answer, in the languages the service has met.

// OverviewHeadings are the overview's heading in the languages met; a page
// that shows one without a container is checked for unknown markup.
var OverviewHeadings = []string{"AI Overview", "Übersicht mit KI"}

// InterfaceLines are strings of the overview's interface, not of its
// answer: a block whose whole text is one of them (ignoring case and
// final full stops or an ellipsis) is left out of the extraction.
var InterfaceLines = []string{
	"AI Overview", "Übersicht mit KI",
	"Show more", "Show less", "Show all", "Mehr anzeigen", "Weniger anzeigen", "Alle anzeigen",
	"Dive deeper in AI Mode", "Im KI-Modus weiter recherchieren",
	"Learn more", "Weitere Informationen", "Feedback", "Feedback geben",
	"An AI Overview is not available for this search",
	"Can't generate an AI overview right now. Try again later",
	"Searching", "Generating", "Thinking", "Generate",
}

// InterfacePrefixes start the overview's disclaimer and feedback lines; a
// block that begins with one of them (ignoring case) is left out.
var InterfacePrefixes = []string{
	"AI responses may include mistakes",
	"AI-generated answers may include mistakes",
	"KI-Antworten können Fehler enthalten",
	"Generative AI is experimental",
	"Generative KI ist experimentell",
	"Thank you! Your feedback",
}
