package serp

import (
	"net/url"
	"slices"
	"strings"

	"github.com/PuerkitoBio/goquery"
)

// IsCaptcha reports whether the browser ended on the "unusual traffic"
// page instead of results: pageURL's path starts with CaptchaPath, or the
// page holds the CAPTCHA form. A page that cannot be parsed is not one.
func IsCaptcha(pageURL, page string) bool {
	return IsCaptchaURL(pageURL) || matches(page, CaptchaForm)
}

// IsCaptchaURL reports whether pageURL is the address of the "unusual
// traffic" page: its path starts with CaptchaPath.
func IsCaptchaURL(pageURL string) bool {
	u, err := url.Parse(pageURL)
	return err == nil && strings.HasPrefix(u.Path, CaptchaPath)
}

// IsConsent reports whether page is the consent interstitial ("Before you
// continue"): it holds a form posting to .../save whose hidden set_eom
// input is "true", the form of its "Reject all" button.
func IsConsent(page string) bool {
	return matches(page, ConsentRejectForm)
}

// OverviewState tells the browser where a results page stands: present is
// true once the overview block holds answer text (what Extract would call
// HasOverview), collapsed while its ShowMore control says it is not
// expanded.
func OverviewState(page string) (present, collapsed bool) {
	doc, err := parse(page)
	if err != nil {
		return false, false
	}
	box := doc.Find(OverviewContainer).First()
	present = len(readBlocks(answerOf(box))) > 0
	collapsed = box.Find(ShowMoreCollapsed).Length() > 0
	return present, collapsed
}

// OverviewPending reports whether the page announces an overview that has
// no answer text yet: the overview block, or its hidden heading (one of
// OverviewHeadings), is there but the answer is still empty, as while it
// streams in.
func OverviewPending(page string) bool {
	doc, err := parse(page)
	if err != nil {
		return false
	}
	box := doc.Find(OverviewContainer).First()
	if len(readBlocks(answerOf(box))) > 0 {
		return false
	}
	return box.Length() > 0 || hasOverviewHeading(doc)
}

// hasOverviewHeading reports whether doc has the overview's hidden heading.
func hasOverviewHeading(doc *goquery.Document) bool {
	found := false
	doc.Find(OverviewHeading).EachWithBreak(func(_ int, h *goquery.Selection) bool {
		found = slices.Contains(OverviewHeadings, normalise(h.Text()))
		return !found
	})
	return found
}

// matches reports whether page parses and holds an element matching sel.
func matches(page, sel string) bool {
	doc, err := parse(page)
	return err == nil && doc.Find(sel).Length() > 0
}
