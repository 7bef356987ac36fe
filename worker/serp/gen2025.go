package serp

import (
	"regexp"
	"strings"

	"github.com/PuerkitoBio/goquery"
	"github.com/kisa-dev/kisa"
	"golang.org/x/net/html"
)

// gen2025 is the overview of April 2025 (the captured page "mobile app
// development"): the answer in a column of its own; its sources are cards
// inside the overview block (three shown, all of them again in a hidden
// list); a chip names its links by position in the page's script data. A
// collapsed overview marks the parts it hides with ahbak="true" next to
// aria-hidden; they are part of the answer.
var gen2025 = generation{
	name:   "2025",
	answer: `[jsname="dvXlsc"]`,
	blocks: `div.rPeykc, li`,
	noText: `script, style, template, noscript, svg, img, g-img, button, ` +
		`[role="button"], [role="dialog"], [aria-hidden="true"]:not([ahbak]), ` +
		`[style*="display:none"], [style*="display: none"], [jscontroller="g4PEk"]`,
	chips: Card2025Chip,
	key:   func(n *html.Node) string { return attr(n, "data-cid") },
	links: cardLinks,
}

// Hooks of the 2025 generation's sources and chips.
const (
	// Card2025Link is the link of one source card inside the overview.
	Card2025Link = `li.LLtSOc a.KEVENd`
	// Card2025Title, Card2025Site and Card2025Icon are a card's article
	// title, site name and favicon (src, or data-src until loaded).
	Card2025Title = `.mNme1d`
	Card2025Site  = `.R8BTeb`
	Card2025Icon  = `img.XNo5Ab`
	// Card2025Chip is a citation chip; its data-cid names its links in the
	// script data.
	Card2025Chip = `[data-cid][data-uuids]`
)

var (
	// chipData2025 is a chip's entry in the script data: "key":["cid",[n,...]].
	chipData2025 = regexp.MustCompile(`"[A-Za-z0-9]+":\["([0-9a-f-]{36})",\[([0-9,]+)\]\]`)
	// order2025 is the list of every source's number, in card order:
	// "key":[[n,...],[]].
	order2025 = regexp.MustCompile(`"[A-Za-z0-9]+":\[\[([0-9,]+)\],\[\]\]`)
)

// cardLinks reads the 2025 generation's sources from its cards and each
// chip's citations from the script data, which numbers the sources in
// card order.
func cardLinks(p pageDoc, box *goquery.Selection) (map[string][]kisa.Citation, []kisa.Source) {
	sources, cites := []kisa.Source{}, []kisa.Citation{}
	seen := map[string]bool{}
	box.Find(Card2025Link).Each(func(_ int, a *goquery.Selection) {
		u := p.linkOf(a.AttrOr("href", "")).url
		if u == "" || seen[u] {
			return
		}
		seen[u] = true
		card := a.Closest("li")
		icon := card.Find(Card2025Icon).First()
		s := kisa.Source{
			URL:    u,
			Title:  firstOf(normalise(a.AttrOr("aria-label", "")), normalise(card.Find(Card2025Title).First().Text())),
			Source: domainOf(u),
			Icon:   firstOf(icon.AttrOr("data-src", ""), icon.AttrOr("src", "")),
		}
		sources = append(sources, s)
		site := normalise(card.Find(Card2025Site).First().Text())
		cites = append(cites, kisa.Citation{URL: s.URL, Title: s.Title, Source: firstOf(site, s.Source), Favicon: s.Icon})
	})
	return chipCitations2025(scriptText(p.Document), cites), sources
}

// chipCitations2025 maps every chip of the script data to the citations
// it names, once per URL.
func chipCitations2025(data string, cites []kisa.Citation) map[string][]kisa.Citation {
	pos := map[string]int{}
	for _, m := range order2025.FindAllStringSubmatch(data, -1) {
		if nums := strings.Split(m[1], ","); len(nums) == len(cites) {
			for i, n := range nums {
				pos[n] = i
			}
			break
		}
	}
	out := map[string][]kisa.Citation{}
	for _, m := range chipData2025.FindAllStringSubmatch(data, -1) {
		for _, n := range strings.Split(m[2], ",") {
			if i, ok := pos[n]; ok {
				out[m[1]] = appendNewCitations(out[m[1]], cites[i:i+1])
			}
		}
	}
	return out
}

// scriptText returns the text of the page's inline scripts.
func scriptText(doc *goquery.Document) string {
	var sb strings.Builder
	doc.Find("script").Each(func(_ int, s *goquery.Selection) {
		sb.WriteString(s.Text())
		sb.WriteByte('\n')
	})
	return sb.String()
}
