package serp

// gen2026 is the overview of 2026 (the captured page "why are frogs
// green" and the fixture server's pages): the answer in a main column
// beside a side panel of sources, citation chips whose links are JSON in
// hidden <!--Sv6Kpe[...]--> comments (citations.go).
var gen2026 = generation{
	name:   "2026",
	answer: `[data-xid="VpUvz"]`,
	blocks: `div.Y3BBE, [role="heading"], li`,
	noText: `script, style, template, noscript, svg, button, ` +
		`[data-crb-el], [role="dialog"], [aria-hidden="true"], ` +
		`[style*="display:none"], [style*="display: none"], [data-xid^="aim-aside"]`,
	chips:   CitationChip,
	chipKey: "data-icl-uuid",
	links:   sv6Links,
}

// Hooks of the 2026 generation's citations and side panel.
const (
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
)
