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
//     (665, 957, 53 and 101 KB to 125, 162, 30 and 64 KB).
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
