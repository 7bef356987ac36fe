package serp_test

import (
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/go-cmp/cmp"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/worker/serp"
)

// phoneOverviewPage is a phone's results page of February 2026 modelled on
// the real one (kjellberg/serp_parser, spec/files/google/2026-02-18-mobile-
// smhi-nykyrka-motala.html, 537 KB, not stored here, read in parts): the
// overview and two organic results rebuilt from its markup, the elements,
// classes and hooks as saved, scripts, styles, images and the rest of the
// page left out; the chip's record and the source list are the ones the
// page's script inserts, and the second list item's text (filled by the
// script) is the publisher's expected answer. The overview stands between
// the organic results; its aimc answer sits in the 2025 generation's
// column, its sources are a list inside the block (li.ZZh6Vb a.KEVENd).
const phoneOverviewPage = "phone-aio-smhi-2026.html"

// TestExtractPhoneOverview2026 reads the phone page's overview (first
// words, list items, the five sources of its list, the chip's record) and
// its organic results around it.
func TestExtractPhoneOverview2026(t *testing.T) {
	page := readPage(t, phoneOverviewPage)
	ov := extract(t, page)
	if !ov.HasOverview || !strings.HasPrefix(ov.Text, "För att få den mest exakta och aktuella väderprognosen för Nykyrka, Motala, rekommenderas att du besöker SMHIs webbplats.") ||
		!strings.Contains(ov.Text, "Sök på SMHI: Gå till smhi.se") || strings.Contains(ov.Text, "AI-översikt") {
		t.Errorf("overview text = %q (has %v)", ov.Text, ov.HasOverview)
	}
	var urls []string
	for _, s := range ov.Sources {
		urls = append(urls, s.URL)
	}
	want := []string{
		"https://www.smhi.se/kunskapsbanken/meteorologi/vaderprognoser/varfor-kan-vaderprognoser-skilja-sig-at",
		"https://www.smhi.se/klimat/klimatet-da-och-nu/arets-och-arstidernas-vader",
		"https://pctidningen.se/program/app/de-3-basta-vadertjansterna",
		"https://www.smhi.se/kunskapsbanken/meteorologi/vaderprognoser/tolka-smhis-vaderprognoser",
		"https://illvet.se/naturen/vadret/hur-langt-framat-i-tiden-kan-man-forutsaga-vadret",
	}
	if diff := cmp.Diff(want, urls); diff != "" {
		t.Errorf("sources mismatch (-want +got):\n%s", diff)
	}
	if len(ov.Sources) > 0 && (ov.Sources[0].Title != "Varför kan väderprognoser skilja sig åt? - SMHI" || ov.Sources[0].Source != "smhi.se") {
		t.Errorf("first source = %+v, want the title of the page's record", ov.Sources[0])
	}
	web, err := serp.ExtractWeb(page)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range web.Organic {
		got = append(got, r.URL)
	}
	if diff := cmp.Diff([]string{"https://www.smhi.se/vader/prognoser-och-varningar/vaderprognos/q/Motala/2690960", "https://www.klart.se/se/v%C3%A4der-nykyrke/"}, got); diff != "" {
		t.Errorf("organic mismatch (-want +got):\n%s", diff)
	}
}

// armhangPage is a real phone results page of 19 April 2026 kept in parts
// (kjellberg/serp_parser, spec/files/google/2026-04-19-mobile-vad-ar-
// armhang.html, 2.1 MB, read 16 kB at a time; what was left out is listed
// in the file's first comment): an overview whose answer is collapsed
// (its blocks after the first marked ahbak="true" aria-hidden="true"),
// with a list of four source cards ([role=listitem] links labelled by
// their title) and chips whose links are the records of hidden data
// blocks; seventeen organic results, nine in #rso and eight in the
// continuation below it (#botstuff), among "People also ask", two video
// results, two image modules, forum answers inside a result and related
// searches.
const armhangPage = "phone-aio-armhang-2026.html"

// armhangOrganic are the page's organic results in order: the
// publisher's expected list (2026-04-19-mobile-vad-ar-armhang.json, 18
// results) without its second, svensktkosttillskott.se, which is the
// source quoted in the answer of the first "People also ask" question,
// not a result; its seventh is the same page without the engine's
// srsltid parameter, which the page's link carries.
var armhangOrganic = []string{
	"https://sv.wikipedia.org/wiki/Armh%C3%A4vning",
	"https://privatetrainingonline.se/armhavningar/",
	"https://iform.se/traning/styrketraning/styrkeovningar/guide-till-den-perfekta-armhavningen",
	"https://www.mabra.com/traning/sa-enkelt-blir-du-av-med-gaddhanget/6619153",
	"https://www.facebook.com/photo.php?fbid=376108995795103&set=a.376108952461774&id=100064628412296",
	"https://www.reddit.com/r/jrotc/comments/sbz4j2/how_to_do_the_flexed_arm_hang/?tl=sv",
	"https://skadekompassen.se/ovningar/armhavning-pushup/?srsltid=AfmBOorC8-wZNk-UFSXr8ak66kAhxGxUSMCVMboif_n45jFmGFQPINtF",
	"https://www.mmsports.se/blogg/armhavningar-teknik-och-tips",
	"https://naprapatiska.se/2018/09/17/hanga-for-friskare-axlar/",
	"https://ak.se/blogg/trana-gaddhang/",
	"https://www.allas.se/halsa/trana-bort-gaddhanget/7665335",
	"https://www.pliktverket.se/for-dig-som-fyller-18-ar/monstringsunderlaget-och-monstringen/sa-har-gar-monstringen-till",
	"https://trainimal.com/se/sahar-blir-du-av-med-ditt-gaddhang-gar-det-ens/",
	"https://www.tranakampsport.se/artiklar/6-armhavningar-och-hur-de-hjalper-kroppen",
	"https://www.sverigespringer.se/trana-armar-med-en-kompis/",
	"https://www.expressen.se/livsstil/halsa/armhavningar-vanliga-fel-och-hur-du-gor-ratt/",
	"https://www.styrkelabbet.se/hur-mycket-av-kroppsvikten-lyfter-du-vid-en-armhavning/",
}

// TestExtractPhoneArmhang2026 reads the April 2026 phone page: every
// organic result in order, below #rso too (the video results, the "People
// also ask" sources, the forum answers and the image cards are not
// results), the whole collapsed answer, its four source cards with their
// dates, and each chip's citations (the publisher's expected citations
// are the first site of each chip that names one: facebook.com and
// skadekompassen.se; each chip's "+1" is the second).
func TestExtractPhoneArmhang2026(t *testing.T) {
	page := readPage(t, armhangPage)
	assertOrganic(t, page, armhangPage, armhangOrganic)

	ov := extract(t, page)
	assertNoInterface(t, ov)
	assertParagraphsMatchText(t, ov)
	if !ov.HasOverview || !strings.HasPrefix(ov.Text, `Armhäng (ofta kallat "flexed arm hang" på engelska) är en statisk styrkeövning`) ||
		!strings.HasSuffix(ov.Text, "Det skiljer sig från en armhävning (push-up), som är en övning på golvet för bröst, triceps och axlar.") || len(ov.Paragraphs) != 7 {
		t.Errorf("overview = %v, %d paragraphs, text %q", ov.HasOverview, len(ov.Paragraphs), ov.Text)
	}
	type src struct{ URL, Title, Date string }
	var sources []src
	for _, s := range ov.Sources {
		sources = append(sources, src{s.URL, s.Title, s.PublishedAt})
	}
	wantSources := []src{
		{"https://www.reddit.com/r/jrotc/comments/sbz4j2/how_to_do_the_flexed_arm_hang/?tl=sv", "Hur gör man armhäng med böjda armar? : r/jrotc - Reddit", "2022-01-24"},
		{"https://www.facebook.com/skaraborgsregemente/photos/a.376108952461774/376108995795103/?type=3", "Skaraborgs - Ett annat styrketest är armhäng. - Facebook", "2012-08-23"},
		{"https://skadekompassen.se/ovningar/armhavning-pushup/", "Armhävning / pushup - Skadekompassen", "2023-06-21"},
		{"https://sv.wikipedia.org/wiki/Armh%C3%A4vning", "Armhävning - Wikipedia", ""},
	}
	if diff := cmp.Diff(wantSources, sources); diff != "" {
		t.Errorf("sources mismatch (-want +got):\n%s", diff)
	}
	var cites [][]string
	for _, p := range ov.Paragraphs {
		var urls []string
		for _, c := range p.Citations {
			urls = append(urls, c.Source+" "+c.URL)
		}
		cites = append(cites, urls)
	}
	wantCites := [][]string{
		{"Facebook https://www.facebook.com/skaraborgsregemente/photos/a.376108952461774/376108995795103/?type=3",
			"Reddit https://www.reddit.com/r/jrotc/comments/sbz4j2/how_to_do_the_flexed_arm_hang/?tl=sv"},
		nil, nil, nil, nil, nil,
		{"Skadekompassen https://skadekompassen.se/ovningar/armhavning-pushup/", "Wikipedia https://sv.wikipedia.org/wiki/Armh%C3%A4vning"},
	}
	if diff := cmp.Diff(wantCites, cites); diff != "" {
		t.Errorf("citations by paragraph mismatch (-want +got):\n%s", diff)
	}
	compareGolden(t, armhangPage, ov)
}

// TestExtractPhoneSourceCardsByLabel reads the April 2026 page's source
// cards with every HTML comment removed (the records that name each
// link): a card's title is then the element that labels its link.
func TestExtractPhoneSourceCardsByLabel(t *testing.T) {
	page := regexp.MustCompile(`(?s)<!--.*?-->`).ReplaceAllString(readPage(t, armhangPage), "")
	ov := extract(t, page)
	var titles []string
	for _, s := range ov.Sources {
		titles = append(titles, s.Title)
	}
	want := []string{"Hur gör man armhäng med böjda armar? : r/jrotc - Reddit", "Skaraborgs - Ett annat styrketest är armhäng. - Facebook",
		"Armhävning / pushup - Skadekompassen", "Armhävning - Wikipedia"}
	if diff := cmp.Diff(want, titles); diff != "" {
		t.Errorf("source titles without records (-want +got):\n%s", diff)
	}
}

// adsPage is a real phone results page of 18 February 2026 kept in parts
// (kjellberg/serp_parser, spec/files/google/2026-02-18-mobile-matkasse-
// hemleverans-ads.html, 564 KB, read 16 kB at a time; what was left out
// is listed in the file's first comment): #rso from its first result to
// the image module, without an overview. Ten organic results, between
// them "People also ask", a block of two ads after the fourth result
// (#HbKV2c: each ad a [data-text-ad] block whose title link leads to the
// advertiser's page, with data-pcu and data-rw; sitelink chips and
// addresses through /aclk; a list of searches "Hitta relaterade
// produkter och tjänster"), the related searches with a carousel, and the
// image module.
const adsPage = "phone-ads-matkasse-2026.html"

// adsOrganic are the page's organic results in order: the publisher's
// expected list (2026-02-18-mobile-matkasse-hemleverans-ads.json) as it
// stands.
var adsOrganic = []string{
	"https://www.linasmatkasse.se/",
	"https://hitta-matkasse.se/",
	"https://www.hellofresh.se/matkasse/hemleverans",
	"https://svartaladan.se/matkasse/",
	"https://www.matkasse.com/se/stockholm/",
	"https://www.mathem.se/",
	"https://middagskassen.se/",
	"https://www.ica.se/icas-matkasse/",
	"https://hittamatkassen.se/alla-matkassar/",
	"https://hittadinmatkasse.se/leverans-matkasse/",
}

// TestExtractPhoneAds2026 reads the February 2026 ads page: the ten
// organic results in order, none of the ads (their title links lead
// straight to the advertisers' pages) and none of the searches, the
// results after the ads and after the related searches too; no overview,
// and the page is not unknown markup.
func TestExtractPhoneAds2026(t *testing.T) {
	page := readPage(t, adsPage)
	assertOrganic(t, page, adsPage, adsOrganic)

	ov := extract(t, page)
	if ov.HasOverview || ov.Text != "" || len(ov.Sources) != 0 {
		t.Errorf("overview = %+v, want none", ov)
	}

	// With two of its five related searches left, the block is still a
	// module of its own (it lists its links), not a heading over the tenth
	// result after it.
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	doc.Find(`[id="62KVaZGeBbC7wPAPgsi6iQM__99"], [id="62KVaZGeBbC7wPAPgsi6iQM__100"], [id="62KVaZGeBbC7wPAPgsi6iQM__101"]`).Parent().Remove()
	cut, err := doc.Html()
	if err != nil {
		t.Fatal(err)
	}
	if _, got := readOrganic(t, cut); !slices.Equal(adsOrganic, got) {
		diff := cmp.Diff(adsOrganic, got)
		t.Errorf("organic with two related searches mismatch (-want +got):\n%s", diff)
	}
}

// kalorisnalPage is the AI overview of a real phone results page of 19
// April 2026 kept in part (kjellberg/serp_parser, spec/files/google/
// 2026-04-19-mobile-matkasse-kalorisnal.html, 1.9 MB, read 16 kB at a
// time; what was left out is listed in the file's first comment): the
// overview's block to the end of its source list, no organic result. Its
// answer is a first block shown, then a bold heading, a list of three
// items and a last block, collapsed (ahbak); four chips, one without
// links, two naming five and six links through hidden data blocks (new
// sources, "Hrp5ac", and sources named before, "sfX1rc"); nine source
// cards, two with a date in their snippet, their links carrying text
// fragments (#:~:text=).
const kalorisnalPage = "phone-aio-kalorisnal-2026.html"

// TestExtractPhoneKalorisnal2026 reads the overview of the second April
// 2026 page: first and last words, its six paragraphs, its nine sources
// in the list's order with their dates, and each paragraph's citations.
// The publisher's expected citations (2026-04-19-mobile-matkasse-
// kalorisnal.json) are the same list without its eighth card (Instagram,
// the only card without a thumbnail), with the links' text fragments,
// which the sources here drop.
func TestExtractPhoneKalorisnal2026(t *testing.T) {
	page := readPage(t, kalorisnalPage)
	ov := extract(t, page)
	assertNoInterface(t, ov)
	assertParagraphsMatchText(t, ov)
	if !ov.HasOverview || !strings.HasPrefix(ov.Text, "För en kalorisnål matkasse med fokus på hälsosamma middagar finns flera bra alternativ i Sverige.") ||
		!strings.HasSuffix(ov.Text, "Dessa matkassar underlättar viktnedgång och hälsosamma vanor genom att färdigplanera måltiderna.") || len(ov.Paragraphs) != 6 {
		t.Errorf("overview = %v, %d paragraphs, text %q", ov.HasOverview, len(ov.Paragraphs), ov.Text)
	}
	type src struct{ URL, Date string }
	var sources []src
	for _, s := range ov.Sources {
		sources = append(sources, src{s.URL, s.PublishedAt})
	}
	wantSources := []src{
		{"https://www.hellofresh.se/matkasse/kalorismarta", ""},
		{"https://www.linasmatkasse.se/artikel/dietisten-tipsar-kalorismart", ""},
		{"https://www.linasmatkasse.se/matkasse/kalorismart", ""},
		{"https://middagskassen.se/viktminskning/", "2026-03-14"},
		{"https://www.hellofresh.se/matkasse/nyttig", ""},
		{"https://hittamatkassen.se/viktnedgangskasse/", ""},
		{"https://www.jamformatkassar.se/specialkassar/nyttiga-matkassar", ""},
		{"https://www.instagram.com/p/DUVWnXikuB2/", "2026-02-04"},
		{"https://gronakassen.se/matkassar/nyttig-matkasse/", ""},
	}
	if diff := cmp.Diff(wantSources, sources); diff != "" {
		t.Errorf("sources mismatch (-want +got):\n%s", diff)
	}
	var cites [][]string
	for _, p := range ov.Paragraphs {
		var urls []string
		for _, c := range p.Citations {
			urls = append(urls, c.URL)
		}
		cites = append(cites, urls)
	}
	wantCites := [][]string{
		{"https://www.hellofresh.se/matkasse/kalorismarta", "https://www.linasmatkasse.se/matkasse/kalorismart",
			"https://www.linasmatkasse.se/artikel/dietisten-tipsar-kalorismart", "https://middagskassen.se/viktminskning/",
			"https://gronakassen.se/matkassar/nyttig-matkasse/"},
		nil, nil, nil,
		{"https://www.hellofresh.se/matkasse/kalorismarta", "https://www.linasmatkasse.se/matkasse/kalorismart",
			"https://www.hellofresh.se/matkasse/nyttig", "https://gronakassen.se/matkassar/nyttig-matkasse/",
			"https://hittamatkassen.se/viktnedgangskasse/", "https://www.instagram.com/p/DUVWnXikuB2/"},
		{"https://www.jamformatkassar.se/specialkassar/nyttiga-matkassar"},
	}
	if diff := cmp.Diff(wantCites, cites); diff != "" {
		t.Errorf("citations by paragraph mismatch (-want +got):\n%s", diff)
	}
	compareGolden(t, kalorisnalPage, ov)

	// Saved without its records, the cards are still read: each title is
	// the element that labels the card's link.
	bare := extract(t, regexp.MustCompile(`(?s)<!--.*?-->`).ReplaceAllString(page, ""))
	var titles []string
	for _, s := range bare.Sources {
		titles = append(titles, s.Title)
	}
	if len(titles) != 9 || titles[0] != "Kalorisnål matkasse - Rabatt + kvarnset från Peugeot - HelloFresh" || titles[8] != "Nyttigaste matkassen 2026 - Gröna Kassen" {
		t.Errorf("source titles without records = %q", titles)
	}

	if _, err := serp.ExtractWeb(page); !errors.Is(err, kisa.Unrecognised) {
		t.Errorf("ExtractWeb on a page without its results: %v, want kisa.Unrecognised", err)
	}
}

// assertOrganic checks that web search reads exactly the organic results
// want (urls, in order) on the page called name, and the rest of its
// reading against the page's golden file.
func assertOrganic(t *testing.T, page, name string, want []string) {
	t.Helper()
	web, got := readOrganic(t, page)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("organic mismatch (-want +got):\n%s", diff)
	}
	compareGolden(t, "web-"+name, web)
}

// readOrganic reads page with web search: the reading and its organic
// results' urls in order.
func readOrganic(t *testing.T, page string) (kisa.WebResults, []string) {
	t.Helper()
	web, err := serp.ExtractWeb(page)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range web.Organic {
		got = append(got, r.URL)
	}
	return web, got
}
