package serp

// aimc is the answer markup that AI Mode introduced and that the overview
// took over in 2025 and 2026 (the captured pages "why are frogs green"
// and the AI Mode conversation, and the fixture server's pages): one
// reading for both surfaces. The answer sits in an "aimc" subtree
// (AnswerSubtree), its text in a main column (AnswerColumn) beside a side
// panel of sources (SidePanelLink), its citation chips name their links
// in hidden JSON comments (citations.go).
//
// The reading stands on what every variant met so far shares: the main
// column's class or container id, its blocks (paragraphs of either
// class, headings, list items), chips by their data-icl-uuid. It does not
// depend on the obfuscated data-xid="VpUvz" that only some variants
// carry on the column.
var aimc = generation{
	name:   "aimc",
	answer: AnswerColumn,
	blocks: `div.Y3BBE, div.n6owBd, [role="heading"], li, tr`,
	noText: `script, style, template, noscript, svg, button, textarea, ` +
		`[data-crb-el], [role="dialog"], [aria-hidden="true"]:not([ahbak]), ` +
		`[role="status"], [role="progressbar"], [aria-live], ` +
		`[style*="display:none"], [style*="display: none"], [data-xid^="aim-aside"], ` +
		`[data-container-id="rhs-col"]`,
	chips: "button",
	key:   aimcChipKey,
	links: sv6Links,
}

// Hooks of the aimc answer, its citations and its side panel.
const (
	// AnswerSubtree is the subtree of one answer: the overview's, or one
	// turn's of AI Mode.
	AnswerSubtree = `[data-subtree="aimc"]`
	// AnswerColumn is the answer's main column inside AnswerSubtree (the
	// fixture's overview has the column without the subtree).
	AnswerColumn = `.mZJni, [data-container-id="main-col"]`
	// CitationChip is an inline citation button; its data-icl-uuid names
	// the JSON comment that lists its links (on a page saved without
	// attributes, any button of the answer is a chip candidate: see
	// aimcChipKey).
	CitationChip = `button[data-icl-uuid]`
	// CitationDataBlock holds the hidden <!--Sv6Kpe[...]--> JSON comments.
	CitationDataBlock = `[data-crb-el]`
	// CitationCommentPrefix starts the HTML comments of the data blocks
	// with the chips' and the side panel's links.
	CitationCommentPrefix = `Sv6Kpe`
	// ChipCommentPrefix starts the HTML comment after a chip with its
	// links (June 2026 on): "TgQPHd<ids>|<ids>|[...]".
	ChipCommentPrefix = `TgQPHd`
	// ChipLink is a link beside a chip's button (September 2026) that
	// names the chip's first site, labelled "Site (+N) – Title. Related
	// results".
	ChipLink = `a[href][aria-label]`
	// ChipLinkLabelSeparator separates the site from the title in a
	// ChipLink's label; ChipLinkLabelSuffix ends the label.
	ChipLinkLabelSeparator = " – "
	ChipLinkLabelSuffix    = "Related results"
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
)
