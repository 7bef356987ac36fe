package serp

import (
	"github.com/PuerkitoBio/goquery"
	"github.com/kisa-dev/kisa"
)

// generation describes one generation of the overview's markup: where its
// answer is, what a block of it is, what inside it is not text, and how
// its citations and sources are read. The search engine serves several
// generations at once; Extract tries generations newest first and uses
// the first whose answer column is in the overview block. Adding the next
// generation is one file like gen2026.go, one entry in generations, and
// its pages in testdata/.
type generation struct {
	// name identifies the generation in logs and tests, e.g. "2026".
	name string
	// answer is the answer column inside the overview container; its
	// presence tells this generation.
	answer string
	// blocks are the blocks of the answer: paragraphs, headings, list
	// items. Blocks may nest; a block's text leaves out those nested in it.
	blocks string
	// noText are the subtrees of the answer whose text is not the answer.
	noText string
	// chips are the inline citation chips; chipKey is the attribute that
	// names a chip's links for links.
	chips, chipKey string
	// links reads the links behind the chips (by chipKey value) and the
	// overview's sources, once per URL, from the page and its block.
	links func(doc *goquery.Document, box *goquery.Selection) (chips map[string][]kisa.Citation, sources []kisa.Source)
}

// generations are the known generations, newest first.
var generations = []generation{gen2026, gen2025}

// Generations returns the names of the generations Extract reads, newest
// first.
func Generations() []string {
	names := make([]string, 0, len(generations))
	for _, g := range generations {
		names = append(names, g.name)
	}
	return names
}

// generationOf returns the generation whose answer column is in box, and
// that column; ok is false when none is.
func generationOf(box *goquery.Selection) (g generation, answer *goquery.Selection, ok bool) {
	for _, g := range generations {
		if a := box.Find(g.answer).First(); a.Length() > 0 {
			return g, a, true
		}
	}
	return generation{}, nil, false
}
