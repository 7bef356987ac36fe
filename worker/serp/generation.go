package serp

import (
	"github.com/PuerkitoBio/goquery"
	"github.com/kisa-dev/kisa"
	"golang.org/x/net/html"
)

// generation describes one generation of the overview's markup: where its
// answer is, what a block of it is, what inside it is not text, and how
// its citations and sources are read. The search engine serves several
// generations at once; Extract tries generations newest first and uses
// the first whose answer column is in the overview block. Adding the next
// generation is one file like gen2026.go, one entry in generations, and
// its pages in testdata/.
type generation struct {
	// name identifies the generation in logs and tests, e.g. "aimc".
	name string
	// answer is the answer column inside the overview container; its
	// presence tells this generation.
	answer string
	// blocks are the blocks of the answer: paragraphs, headings, list
	// items. Blocks may nest; a block's text leaves out those nested in it.
	blocks string
	// noText are the subtrees of the answer whose text is not the answer.
	noText string
	// chips are the inline citation chips; key names a chip's links
	// among those links reads ("" for a chip without links).
	chips string
	key   func(chip *html.Node) string
	// links reads the links behind the chips (by key) and the overview's
	// sources, once per URL, from the page and its block.
	links func(p pageDoc, box *goquery.Selection) (chips map[string][]kisa.Citation, sources []kisa.Source)
}

// generations are the known generations, newest first.
var generations = []generation{aimc, gen2025}

// Generations returns the names of the generations Extract reads, newest
// first.
func Generations() []string {
	names := make([]string, 0, len(generations))
	for _, g := range generations {
		names = append(names, g.name)
	}
	return names
}

// reading is one generation's reading of an answer: its column and
// blocks.
type reading struct {
	g      generation
	column *html.Node
	blocks []block
}

// readAnswer reads box with every generation whose answer column is in
// it and returns the reading of the whole answer; ok is false when no
// generation's column is in box. A column that holds another generation's
// column is a wrapper around the answer and its side panels, not the
// answer (the captured 2026 page has the 2025 column around the aimc
// one); of the others, the reading with the most text wins, the first of
// equals.
func readAnswer(box *goquery.Selection) (best reading, ok bool) {
	var rs []reading
	for _, g := range generations {
		if a := box.Find(g.answer).First(); a.Length() > 0 {
			rs = append(rs, reading{g: g, column: a.Get(0), blocks: g.readBlocks(a)})
		}
	}
	most := -1
	for _, r := range rs {
		if n := textLength(r.blocks); n > most && !wraps(r, rs) {
			best, most, ok = r, n, true
		}
	}
	return best, ok
}

// wraps reports whether r's column holds the column of another reading.
func wraps(r reading, rs []reading) bool {
	for _, o := range rs {
		if o.column != r.column && contains(r.column, o.column) {
			return true
		}
	}
	return false
}

// contains reports whether n is an ancestor of d.
func contains(n, d *html.Node) bool {
	for p := d.Parent; p != nil; p = p.Parent {
		if p == n {
			return true
		}
	}
	return false
}

// textLength is the length of the blocks' text.
func textLength(blocks []block) int {
	n := 0
	for _, b := range blocks {
		n += len(b.text)
	}
	return n
}
