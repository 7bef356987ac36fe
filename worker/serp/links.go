package serp

import (
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/kisa-dev/kisa"
)

// The links of an answer (its citations, sources and related links) are
// direct, or go through one of the engine's redirects: /url?q=<target>,
// whose target is in the link, or the opaque /goto?url=<token>, whose
// target is not in the page (2026). A source or citation behind an opaque
// redirect keeps what its card shows; its URL is the absolute redirect
// link with Resolved false, until a visit learns the target through the
// redirect (the worker does, in the same browser identity).
const (
	// EngineOrigin is the origin a saved page's relative links are read
	// against when the reading is not told the page's own (ExtractAt,
	// ExtractAIModeAt).
	EngineOrigin = "https://www.google.com/"
	// OpaqueRedirectPath is the path of the engine's opaque redirect,
	// /goto?url=<token>.
	OpaqueRedirectPath = "/goto"
	// TransparentRedirectPath is the path of the engine's redirect that
	// names its target, /url?q=<target>.
	TransparentRedirectPath = "/url"
)

// pageDoc is a parsed page and the address its relative links are read
// against.
type pageDoc struct {
	*goquery.Document
	base *url.URL
}

// parseAt parses page and keeps base (EngineOrigin when it does not
// parse as an absolute URL) for its links.
func parseAt(page, base string) (pageDoc, error) {
	doc, err := parse(page)
	if err != nil {
		return pageDoc{}, err
	}
	b, err := url.Parse(base)
	if err != nil || b.Host == "" {
		b, _ = url.Parse(EngineOrigin)
	}
	return pageDoc{Document: doc, base: b}, nil
}

// link is where a link of the page leads: a web address, and whether it
// is the engine's opaque redirect rather than the target page.
type link struct {
	url    string
	opaque bool
}

// linkOf reads href, relative to the page's base: a direct http(s)
// address (without a text fragment), the target of a /url?q= redirect,
// or the absolute link of an opaque /goto redirect (opaque). It returns
// an empty link for anything else (a search of the engine's own is a
// direct link; the caller decides).
func (p pageDoc) linkOf(href string) link {
	href = strings.TrimSpace(href)
	if href == "" || strings.HasPrefix(href, "#") {
		return link{}
	}
	u, err := p.base.Parse(href)
	if err != nil {
		return link{}
	}
	direct := cleanURL(u.String())
	if abs, err := url.Parse(href); err == nil && abs.IsAbs() {
		direct = cleanURL(href) // as written, not as re-encoded
	}
	if engineHost(u.Hostname()) || strings.EqualFold(u.Host, p.base.Host) {
		switch u.Path {
		case TransparentRedirectPath:
			q := u.Query()
			return link{url: cleanURL(firstOf(q.Get("q"), q.Get("url")))}
		case OpaqueRedirectPath:
			if u.Query().Get("url") == "" {
				return link{}
			}
			u.Fragment = ""
			return link{url: cleanURL(u.String()), opaque: true}
		}
	}
	return link{url: direct}
}

// engineHost reports whether host is one of the search engine's
// (google.com, www.google.de, ...).
func engineHost(host string) bool {
	host = strings.ToLower(host)
	return strings.HasPrefix(host, "google.") || strings.Contains(host, ".google.")
}

// state is the LinkState of a link whose card shows date (as read by
// shownDate).
func (l link) state(date string) kisa.LinkState {
	s := kisa.LinkState{PublishedAt: date}
	if l.opaque {
		f := false
		s.Resolved = &f
	}
	return s
}

// publisherOf returns the domain of the site a favicon URL of the engine
// names (faviconV2?url=https://site&...), or "".
func publisherOf(favicon string) string {
	u, err := url.Parse(favicon)
	if err != nil {
		return ""
	}
	if site := u.Query().Get("url"); site != "" {
		return domainOf(cleanURL(site))
	}
	return ""
}

// The dates a card shows: a full date in the forms met (Aug 21, 2026;
// 21 Aug 2026; 2026-08-21; the Swedish page's 24 jan. 2022 and 21 juni
// 2023), a relative one (3 days ago) or a day without a year (Aug 21).
// Month names are English or Swedish (swedishMonths), the languages of the
// pages met with dates.
var (
	isoDate      = regexp.MustCompile(`^(\d{4})-(\d{2})-(\d{2})\b`)
	monthDayYear = regexp.MustCompile(`^([A-Z][a-z]{2,8})\.? (\d{1,2}), (\d{4})\b`)
	dayMonthYear = regexp.MustCompile(`^(\d{1,2}) ([A-Za-z]{3,9})\.? (\d{4})\b`)
	relative     = regexp.MustCompile(`^(\d+|an?) (minute|hour|day|week|month|year)s? ago\b`)
	monthDay     = regexp.MustCompile(`^([A-Z][a-z]{2,8})\.? (\d{1,2})$`)
)

// shownDate returns the date text starts with: YYYY-MM-DD for a full
// date, the text as shown for a relative date or a day without a year
// (which only the visit's time can place; see DateAt), "" when text does
// not start with a date. A day without a year counts only as the whole
// text.
func shownDate(text string) string {
	t := normalise(text)
	if m := isoDate.FindStringSubmatch(t); m != nil {
		return ymd(m[1], monthNumber(m[2]), m[3])
	}
	if m := monthDayYear.FindStringSubmatch(t); m != nil {
		return ymd(m[3], monthOf(m[1]), m[2])
	}
	if m := dayMonthYear.FindStringSubmatch(t); m != nil {
		return ymd(m[3], monthOf(m[2]), m[1])
	}
	if m := relative.FindString(t); m != "" {
		return m
	}
	if m := monthDay.FindStringSubmatch(t); m != nil && monthOf(m[1]) > 0 {
		return t
	}
	return ""
}

// ymd formats a date whose parts are valid, else "".
func ymd(year string, month int, day string) string {
	y, err1 := strconv.Atoi(year)
	d, err2 := strconv.Atoi(day)
	if err1 != nil || err2 != nil || month < 1 || month > 12 || d < 1 || d > 31 {
		return ""
	}
	t := time.Date(y, time.Month(month), d, 0, 0, 0, 0, time.UTC)
	if t.Day() != d {
		return ""
	}
	return t.Format(time.DateOnly)
}

// monthNumber is the month of a two-digit number, 0 when none.
func monthNumber(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0
	}
	return n
}

// swedishMonths are the month names of the Swedish pages (the real phone
// page of April 2026 shows "jan.", "feb.", "maj", "juni", "juli", "aug.",
// "sep." and "dec." in its cards and snippets), January first.
var swedishMonths = []string{"januari", "februari", "mars", "april", "maj", "juni",
	"juli", "augusti", "september", "oktober", "november", "december"}

// monthOf is the month of an English or Swedish month name or its
// abbreviation ("Sep", "Sept", "September", "sep", "juni"), 0 when none.
func monthOf(name string) int {
	n := strings.ToLower(name)
	for m := time.January; m <= time.December; m++ {
		for _, full := range []string{strings.ToLower(m.String()), swedishMonths[m-1]} {
			if n == full || (len(n) >= 3 && strings.HasPrefix(full, n)) {
				return int(m)
			}
		}
	}
	return 0
}

// DateAt returns the date shown as a card showed it (shownDate's
// result) at the time at: a relative date ("3 days ago") becomes the
// calendar day (YYYY-MM-DD, UTC) it names, counted back from at (a month
// is 30 days, a year 365); a day without a year becomes the latest such
// day not after at. A full date, and anything else, is returned as it is.
func DateAt(shown string, at time.Time) string {
	at = at.UTC()
	if m := relative.FindStringSubmatch(shown); m != nil && m[0] == shown {
		n := 1
		if v, err := strconv.Atoi(m[1]); err == nil {
			n = v
		}
		unit := map[string]time.Duration{"minute": time.Minute, "hour": time.Hour, "day": 24 * time.Hour,
			"week": 7 * 24 * time.Hour, "month": 30 * 24 * time.Hour, "year": 365 * 24 * time.Hour}[m[2]]
		return at.Add(-time.Duration(n) * unit).Format(time.DateOnly)
	}
	if m := monthDay.FindStringSubmatch(shown); m != nil {
		if d := ymd(strconv.Itoa(at.Year()), monthOf(m[1]), m[2]); d != "" {
			if d > at.Format(time.DateOnly) {
				d = ymd(strconv.Itoa(at.Year()-1), monthOf(m[1]), m[2])
			}
			return d
		}
	}
	return shown
}
