// Package captured holds the real search-engine pages captured in the
// wild, stored once in the repository and shared by every test that needs
// them and by the fixture search server. Only test code and the
// serpfixture command import it, so that bin/kisa embeds none of them.
//
// The pages, captured by others and published in public repositories:
//
//   - aio-why-are-frogs-green.html: today's results page for "why are
//     frogs green", saved with its AI overview expanded and the side panel
//     of sources (about 2.4 MB; isabelsilvacorpus/aio_pages);
//   - aio-mobile-app-development-2025.html: an April 2025 results page for
//     "mobile app development", an earlier generation of the overview with
//     its sources as cards inside it (about 3.4 MB; MaulikBorsaniya/seotool);
//   - sorry-captcha.html: the "unusual traffic" CAPTCHA page shown instead
//     of results to a blocked client (gitronald/WebSearcher, GPL-3.0);
//   - aimode-chrome-beta-download-location.html: an AI Mode conversation
//     of June 2026, five turns (a question and four follow-ups) with their
//     answers, side panels of sources and citation chips, as the
//     conversation's root element (not a whole page); saved from the
//     browser by others (lowestprime/google-ai-canvas-exporter, file
//     dev_artifacts/Fix_Chrome_Beta_Download_Location_Input_Example.html).
//     Stored here with its scripts, style sheets and SVG paths removed
//     (848 KB to 652 KB); the markup is otherwise as saved. Its chips'
//     data comments carry no links, so its citations are empty;
//   - web-google-2023.html, web-hotels-2023.html: desktop results pages of
//     2023 for "google" (9 organic results with sitelinks) and "hotels"
//     (ads, the hotels module, 9 organic results); web-google-nojs-2023.html,
//     web-hotels-nojs-2023.html: the same queries as the engine serves
//     them to a client without script (results through /url?q=
//     redirects, no #rso). From zlurad/serp-parser (MIT), files
//     test/google/desktop/{google,hotels}.html and
//     test/google/nojs/{google,hotels}-nojs.html; stored here with their
//     scripts, style sheets, SVG paths and inline data images removed
//     (665, 957, 53 and 101 KB to 125, 162, 30 and 64 KB);
//   - the results pages of WebPages below (desktop and phone pages of 2023,
//     a page without script, no-results pages of 2023 and 2026), each with
//     the repository and file it comes from; stored with their scripts,
//     style sheets, SVG drawings and inline data images removed, the
//     markup otherwise as saved.
package captured

import "embed"

// Names of the captured pages.
const (
	FrogsPage     = "aio-why-are-frogs-green.html"
	MobileAppPage = "aio-mobile-app-development-2025.html"
	CaptchaPage   = "sorry-captcha.html"
	AIModePage    = "aimode-chrome-beta-download-location.html"
	WebGoogle     = "web-google-2023.html"
	WebHotels     = "web-hotels-2023.html"
	WebGoogleNoJS = "web-google-nojs-2023.html"
	WebHotelsNoJS = "web-hotels-nojs-2023.html"
)

// Device is the kind of client a results page was served to.
type Device string

// The devices of WebPages.
const (
	Desktop Device = "desktop"
	Phone   Device = "phone"
	NoJS    Device = "nojs" // a client without script
)

// WebPage is a real results page read by web search, with its origin.
type WebPage struct {
	Name   string // the page's file name in FS
	Query  string // the query it answers
	Device Device
	Origin string // the public repository and file it was published in
}

// zlurad is the origin of the 2023 pages (MIT).
const zlurad = "zlurad/serp-parser, file test/google/"

// WebPages are the real results pages read by web search besides the named
// pages above: desktop and phone pages of May 2023 with their modules
// (knowledge panels, featured snippets, videos, top stories, the local
// pack, ads, "People also ask"), and pages without results.
var WebPages = []WebPage{
	{"web-com-domains-2023.html", ".com domains", Desktop, zlurad + "desktop/_com-domains.html"},
	{"web-dell-2023.html", "dell xps 13 buy", Desktop, zlurad + "desktop/dell.html"},
	{"web-domain-2023.html", "domain", Desktop, zlurad + "desktop/domain.html"},
	{"web-featured-snippet-2023.html", "featured snippet", Desktop, zlurad + "desktop/featured-snippet.html"},
	{"web-hotels-london-2023.html", "top hotels london", Desktop, zlurad + "desktop/hotels-london.html"},
	{"web-matrix-2023.html", "the matrix", Desktop, zlurad + "desktop/matrix.html"},
	{"web-no-results-2023.html", "324j23i4jkdfjklndsklfmsdkl;fsdfds", Desktop, zlurad + "desktop/no-results.html"},
	{"web-paris-2023.html", "things to do in paris", Desktop, zlurad + "desktop/paris.html"},
	{"web-com-domains-phone-2023.html", ".com domains", Phone, zlurad + "mobile/_com-domains.html"},
	{"web-dell-phone-2023.html", "dell xps 13 buy", Phone, zlurad + "mobile/dell.html"},
	{"web-domain-phone-2023.html", "domain", Phone, zlurad + "mobile/domain.html"},
	{"web-featured-snippet-phone-2023.html", "featured snippet", Phone, zlurad + "mobile/featured-snippet.html"},
	{"web-google-phone-2023.html", "google", Phone, zlurad + "mobile/google.html"},
	{"web-hotels-phone-2023.html", "hotels nyc", Phone, zlurad + "mobile/hotels.html"},
	{"web-hotels-london-phone-2023.html", "top hotels london", Phone, zlurad + "mobile/hotels-london.html"},
	{"web-matrix-phone-2023.html", "the matrix", Phone, zlurad + "mobile/matrix.html"},
	{"web-no-results-phone-2023.html", "324j23i4jkdfjklndsklfmsdkl;fsdfds", Phone, zlurad + "mobile/no-results.html"},
	{"web-paris-phone-2023.html", "things to do in paris", Phone, zlurad + "mobile/paris.html"},
	{"web-matrix-nojs-2023.html", "the matrix", NoJS, zlurad + "nojs/matrix-nojs.html"},
	{"web-no-results-nojs-2023.html", "sfl234dsf14sfj323JJJJJfa345fdf45", NoJS, zlurad + "nojs/no-results-nojs.html"},
	{"web-no-results-2026.html", `"pinkies stretched" freethoughtblogs`, Desktop,
		"gitronald/WebSearcher (GPL-3.0), file tests/fixtures/result_estimate_script_fallback_1.html (July 2026)"},
}

// FS holds the captured pages at its root, under the names above.
//
//go:embed *.html
var FS embed.FS

// Page returns the captured page name (one of the names above), or nil if
// there is no such page.
//
// Only tests call it (the fixture server reads FS): it is kept on purpose
// although deadcode ./cmd/... lists it.
func Page(name string) []byte {
	b, err := FS.ReadFile(name)
	if err != nil {
		return nil
	}
	return b
}
