package serpfixture

import (
	"crypto/sha1"
	"encoding/json"
	"fmt"
	"html"
	"net/url"
	"strconv"
	"strings"
)

// The overview's markup copies the hooks of the real results page (see
// worker/serp/selectors.go and the captured page in captured/): paragraphs
// div.Y3BBE, headings [role=heading], lists of li, citation chips
// button.rBl3me[data-icl-uuid] whose links are listed in HTML-escaped JSON
// comments <!--Sv6Kpe[...]--> inside hidden [data-crb-el] blocks, and the
// side panel of a.NDNGvf links with a "Show all" dialog.

// placeholderGIF is the 1x1 image that stands in for a lazy favicon.
const placeholderGIF = "data:image/gif;base64,R0lGODlhAQABAIAAAP///////yH5BAEKAAEALAAAAAABAAEAAAICTAEAOw=="

// chunk is one step of the streamed overview: markup appended to the
// answer column ("answer") or to the side panel ("aside").
type chunk struct {
	To   string `json:"to"`
	HTML string `json:"html"`
}

// renderer writes the markup of one overview; it numbers chips and
// remembers which links a chip already gave in full.
type renderer struct {
	ov    overview
	w     words
	seed  string
	chips int
	given map[int]bool
}

// overviewChunks returns the overview's markup in streaming order: one
// chunk per block, then the side panel.
func overviewChunks(ov overview, w words, seed string) []chunk {
	r := &renderer{ov: ov, w: w, seed: seed, given: map[int]bool{}}
	var out []chunk
	for i, b := range ov.Blocks {
		out = append(out, chunk{To: "answer", HTML: r.block(i, b)})
	}
	return append(out, chunk{To: "aside", HTML: r.aside()})
}

// block renders one block, wrapped like the real page's streamed parts.
func (r *renderer) block(i int, b blockSpec) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, `<div style="display: contents" id="sdh_%d">`, i+1)
	switch b.Kind {
	case "h":
		fmt.Fprintf(&sb, `<div class="otQkpb" role="heading" aria-level="3">%s</div>`, esc(b.Text))
	case "ul":
		sb.WriteString(r.list(b.Items))
	default:
		chip, data := r.chip(b.Cites)
		fmt.Fprintf(&sb, `<div class="Y3BBE" data-sfc-cp="">%s%s</div>%s`, esc(b.Text), chip, data)
	}
	sb.WriteString(`</div>`)
	return sb.String()
}

// list renders a bulleted list; the data blocks of its chips follow it.
func (r *renderer) list(items []item) string {
	var sb, data strings.Builder
	sb.WriteString(`<ul class="KsbFXc U6u95">`)
	for _, it := range items {
		chip, d := r.chip(it.Cites)
		data.WriteString(d)
		sb.WriteString(`<li><span class="T286Pc">`)
		if it.Lead != "" {
			fmt.Fprintf(&sb, `<strong class="Yjhzub">%s</strong>: `, esc(it.Lead))
		}
		fmt.Fprintf(&sb, `%s</span>%s</li>`, esc(it.Text), chip)
	}
	sb.WriteString(`</ul>`)
	return sb.String() + data.String()
}

// chip renders a citation chip for the given links and the hidden data
// blocks that list them: a link's first appearance in full, later ones
// by reference, as the real page does. It renders nothing without links.
func (r *renderer) chip(cites []int) (chip, data string) {
	if len(cites) == 0 {
		return "", ""
	}
	r.chips++
	id := uuidFor(r.seed, r.chips)
	head := []any{nil, nil, id, nil, nil, 1, 0, "", ""}
	chip = fmt.Sprintf(`<span class="uJ19be notranslate"><span class="vKEkVd">&nbsp;<button tabindex="0" data-icl-uuid="%s" aria-label="%s" class="rBl3me"><span class="wiMplc ofC0Ud">%s</span></button></span>%s</span>`,
		id, esc(r.w.ChipLabel), linkIcon, sv6(head))
	var sb strings.Builder
	for _, n := range cites {
		l := r.ov.Links[n]
		if r.given[n] {
			entry := []any{id, strconv.Itoa(n + 1), 0, r.href(n), favicon(l.URL), ""}
			fmt.Fprintf(&sb, `<div style="display:none;" data-crb-el="sfX1rc">%s</div>`, sv6(entry))
			continue
		}
		r.given[n] = true
		entry := []any{id, r.record(n), 0}
		fmt.Fprintf(&sb, `<div style="display:none;" data-crb-el="Hrp5ac">%s</div>`, sv6(entry))
	}
	return chip, sb.String()
}

// aside renders the side panel: the first sources, "Show all" and the
// dialog that lists them all.
func (r *renderer) aside() string {
	var shown, all strings.Builder
	for i := range r.ov.Links {
		if i < sidePanelShown {
			fmt.Fprintf(&shown, `<li class="jydCyd">%s</li>`, r.entry(i))
		}
		fmt.Fprintf(&all, `<li class="CyMdWb">%s</li>`, r.entry(i))
	}
	return fmt.Sprintf(`<div class="ofHStc Dn7Fzd"><div class="jKhXsc notranslate" data-xid="aim-aside-initial-corroboration-container">`+
		`<ul class="EJw9bc">%s</ul><div class="qnIdo"><div aria-label="%s" role="button" tabindex="0" class="BjvG9b"><span class="zJR8l">%s</span></div></div></div>`+
		`<span style="display: contents"><div class="wDa0n notranslate" role="dialog" aria-label="%s" style="display:none;">`+
		`<div class="HWMcu"><div role="button" tabindex="0" aria-label="%s" class="pJqQqb">×</div></div><ul class="bTFeG">%s</ul></div></span></div>`,
		shown.String(), esc(r.w.ShowAllLabel), esc(r.w.ShowAll), esc(r.w.ShowAllLabel), esc(r.w.Close), all.String())
}

// entry renders side panel website n; a date its card shows stands
// before its snippet.
func (r *renderer) entry(n int) string {
	l := r.ov.Links[n]
	date := ""
	if d := r.date(n); d != "" {
		date = `<span class="ymnJJb">` + esc(d) + `</span> — `
	}
	return fmt.Sprintf(`<div class="MFrAxb BKnikc" data-crb-el="kXllB"><a class="NDNGvf" aria-label="%s" href="%s" target="_blank" rel="noopener"></a>`+
		`<div class="w6SxZb"><div class="T5ny9d"><div class="Nn35F">%s</div><span class="vhJ6Pe">%s%s</span>`+
		`<div class="w8lk7d"><div class="BMzdlb" aria-hidden="true"><span class="fxbadge" style="background:%s">%s</span>`+
		`<img class="sGgDgb" data-src="%s" src="%s" alt=""></div><div class="jEYmO"><span class="Z1JFYc"><span class="R0r5R">%s</span></span></div></div></div></div>%s</div>`,
		esc(l.Title+r.w.OpensNewTab), esc(r.href(n)), esc(l.Title), date, esc(l.Snippet), badgeColour(l.URL), esc(initial(l.Site)),
		esc(favicon(l.URL)), placeholderGIF, esc(l.Site), sv6([]any{r.record(n)}))
}

// href is the link of website n: its URL, or on a page of opaque links
// the engine's redirect to it.
func (r *renderer) href(n int) string {
	if r.ov.Opaque {
		return gotoLink(r.ov.Links, n)
	}
	return r.ov.Links[n].URL
}

// date is the date website n's card shows, or "".
func (r *renderer) date(n int) string {
	if n < len(r.ov.Dates) {
		return r.ov.Dates[n]
	}
	return ""
}

// record is the JSON record of website n (record), with its link and,
// further on as on the real page, the date its card shows.
func (r *renderer) record(n int) []any {
	rec := record(r.ov.Links[n], n)
	rec[5] = r.href(n)
	if d := r.date(n); d != "" {
		rec = append(rec, nil, []any{}, []any{}, 0, []any{}, d, 0)
	}
	return rec
}

// control renders the "Show more" control and its wrapper; expanded says
// which state it shows. An expanded control is hidden, as on the real page.
func control(w words, expanded bool) string {
	style := ""
	if expanded {
		style = ` style="display: none;"`
	}
	return fmt.Sprintf(`<div class="zNsLfb"%s><div class="Jzkafd" aria-label="%s" role="button" tabindex="0" aria-expanded="%t" aria-controls="m-x-content">`+
		`<div class="in7vHe"><span>%s</span><span class="chev" aria-hidden="true">▾</span></div></div></div>`,
		style, esc(w.ShowMoreLabel), expanded, esc(w.ShowMore))
}

// record is the JSON record of a link, shaped like the real page's:
// [title, snippet, favicon, origin, [site], url, null, null, "n"].
func record(l link, n int) []any {
	return []any{l.Title, l.Snippet, favicon(l.URL), origin(l.URL), []any{l.Site}, l.URL, nil, nil, strconv.Itoa(n + 1)}
}

// sv6 renders v as an Sv6Kpe comment: JSON, HTML-escaped like the real page.
func sv6(v any) string {
	b, err := json.Marshal([]any{v})
	if err != nil {
		panic(fmt.Sprintf("serpfixture: encode comment: %v", err)) // only plain values are encoded
	}
	escaper := strings.NewReplacer(`&`, `&amp;`, `"`, `&quot;`, `'`, `&#39;`, `<`, `&lt;`, `>`, `&gt;`)
	return "<!--Sv6Kpe" + escaper.Replace(string(b)) + "-->"
}

// favicon returns the favicon URL the real page gives for u's site. The
// fixture pages never load it: it only stands in data-src and JSON.
func favicon(u string) string {
	return "https://encrypted-tbn0.gstatic.com/faviconV2?url=" + origin(u) +
		"&client=AIM&size=128&type=FAVICON&fallback_opts=TYPE,SIZE,URL"
}

// origin returns the scheme and host of u.
func origin(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return ""
	}
	return p.Scheme + "://" + p.Host
}

// uuidFor returns a stable uuid-shaped id for the n-th chip of a page.
func uuidFor(seed string, n int) string {
	h := sha1.Sum([]byte(seed + "#" + strconv.Itoa(n)))
	x := fmt.Sprintf("%x", h[:16])
	return x[0:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:32]
}

// badgeColour picks a stable colour for a site's letter badge.
func badgeColour(u string) string {
	h := sha1.Sum([]byte(origin(u)))
	return fmt.Sprintf("hsl(%d, 55%%, 45%%)", int(h[0])*360/256)
}

// initial returns the first letter of s, for a favicon badge.
func initial(s string) string {
	for _, r := range s {
		return strings.ToUpper(string(r))
	}
	return "?"
}

// esc escapes text for HTML.
func esc(s string) string { return html.EscapeString(s) }

// linkIcon is the chain-link glyph of a citation chip.
const linkIcon = `<svg fill="currentColor" width="12" height="12" viewBox="0 0 24 24" aria-hidden="true"><path d="M3.9 12c0-1.71 1.39-3.1 3.1-3.1h4V7H7c-2.76 0-5 2.24-5 5s2.24 5 5 5h4v-1.9H7c-1.71 0-3.1-1.39-3.1-3.1zM8 13h8v-2H8v2zm9-6h-4v1.9h4c1.71 0 3.1 1.39 3.1 3.1s-1.39 3.1-3.1 3.1h-4V17h4c2.76 0 5-2.24 5-5s-2.24-5-5-5z"></path></svg>`
