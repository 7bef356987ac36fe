// Package serp knows the search engine's results page: every selector and
// phrase the worker relies on lives in this file, so that a change of the
// page's markup is mended in one place. Extraction (HTML to kisa.Overview)
// is a pure function, tested on the saved pages in testdata/.
package serp

// Selectors and phrases of the results page. Google changes them; keep
// them here and nowhere else.
const (
	// OverviewContainer is the AI overview block.
	OverviewContainer = `div[jscontroller="EYwa3d"]`
	// OverviewBody is the overview's content inside its container.
	OverviewBody = `#m-x-content`
	// OverviewAnswer is the column of answer text inside OverviewBody,
	// without the side panel. When a page lacks it, extraction reads the
	// whole OverviewBody and relies on OverviewNoText to leave the rest out.
	OverviewAnswer = `[data-xid="VpUvz"]`
	// OverviewBlock is one block of the answer: a paragraph, a heading or a
	// list item. Blocks may nest (a list inside a list item); a block's text
	// leaves out the blocks nested in it.
	OverviewBlock = `div.Y3BBE, [role="heading"], li`
	// OverviewNoText are subtrees of the answer whose text is not the
	// overview's: hidden data, dialogs, the side panel, controls, scripts.
	OverviewNoText = `script, style, template, noscript, svg, button, ` +
		`[data-crb-el], [role="dialog"], [aria-hidden="true"], ` +
		`[style*="display:none"], [style*="display: none"], [data-xid^="aim-aside"]`
	// ShowMore is the control that expands a collapsed overview; its
	// aria-expanded attribute says whether it is expanded.
	ShowMore = `[role="button"][aria-controls="m-x-content"][aria-expanded]`
	// ShowMoreCollapsed matches ShowMore only while the overview is collapsed.
	ShowMoreCollapsed = `[role="button"][aria-controls="m-x-content"][aria-expanded="false"]`
	// CitationChip is an inline citation button; its data-icl-uuid names
	// the hidden JSON comment that lists its links.
	CitationChip = `button.rBl3me[data-icl-uuid]`
	// CitationDataBlock holds the hidden <!--Sv6Kpe[...]--> JSON comments.
	CitationDataBlock = `[data-crb-el]`
	// CitationCommentPrefix starts the HTML comment with a chip's links.
	CitationCommentPrefix = `Sv6Kpe`
	// SidePanelLink is one website of the side panel of sources.
	SidePanelLink = `[data-xid="aim-aside-initial-corroboration-container"] li a.NDNGvf`
	// SidePanelAllLink is one website of the "Show all" dialog of the side
	// panel, which lists every source (the first ones again among them).
	SidePanelAllLink = `[role="dialog"] li a.NDNGvf`
	// SidePanelEntry is the block around one side panel link; it holds the
	// link's title, site name, favicon and an Sv6Kpe comment with the same.
	SidePanelEntry = `[data-crb-el]`
	// SidePanelTitle is the article title inside a SidePanelEntry.
	SidePanelTitle = `.Nn35F`
	// SidePanelSite is the site name ("Nature") inside a SidePanelEntry.
	SidePanelSite = `.R0r5R`
	// SidePanelIcon is the favicon image inside a SidePanelEntry; its
	// data-src holds the favicon URL (src is a placeholder until loaded).
	SidePanelIcon = `img[data-src]`
	// SidePanelLabelSuffix ends a side panel link's aria-label after the title.
	SidePanelLabelSuffix = `. Opens in new tab.`
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

// OverviewHeadings are the hidden heading of the overview block in the
// languages the service has met; a page with one of them but no body is
// still loading.
var OverviewHeadings = []string{"AI Overview", "Übersicht mit KI"}

// OverviewHeading is the hidden h1 that carries one of OverviewHeadings.
const OverviewHeading = `h1`

// InterfaceLines are strings of the overview's interface, not of its
// answer: a block whose whole text is one of them (ignoring case and a
// final full stop) is left out of the extraction.
var InterfaceLines = []string{
	"AI Overview", "Übersicht mit KI",
	"Show more", "Show less", "Show all", "Mehr anzeigen", "Weniger anzeigen", "Alle anzeigen",
	"Dive deeper in AI Mode", "Im KI-Modus weiter recherchieren",
	"Learn more", "Weitere Informationen", "Feedback", "Feedback geben",
	"An AI Overview is not available for this search",
	"Can't generate an AI overview right now. Try again later",
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
