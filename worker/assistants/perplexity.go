package assistants

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/PuerkitoBio/goquery"
	"github.com/kisa-dev/kisa"
)

// Perplexity's page (perplexity.ai). Two generations are read: the thread
// page of December 2024 (real: testdata/perplexity-thread-*.html), whose
// citations are numbered links to the source cards above the answer; and
// the page of 2026, whose composer, submit and stop controls, answer
// container and citation pills are real markup met in scrapers and
// exporters, and whose turn wrapper, sources tab, search steps and notices
// are modelled (docs/surfaces.md).
var Perplexity = Hooks{
	Engine: "Perplexity",
	// A Lexical editor (contenteditable, data-lexical-editor): typed
	// keys or insertText reach it.
	Composer:  `#ask-input`,
	Send:      `button[data-testid="submit-button"]`,
	Stop:      `button[data-testid="stop-generating-response-button"]`,
	Turn:      `[data-testid="thread-turn"]`,
	Answer:    `[id^="markdown-content-"]`,
	Streaming: `[data-testid="answer-streaming"]`,
	Finished:  `[data-testid="answer-actions"] button[aria-label="Copy"]`,
	// The turn's "Links" tab, the full list of its sources: the list is
	// rendered once it is opened.
	SourcesControl: `[role="tab"][data-testid="sources-tab"]`,
	SourcesPanel:   `[role="tabpanel"][data-testid="sources-panel"]`,
	CookieReject:   `[data-testid="cookie-banner"] button[data-testid="cookie-reject"]`,
	SignInDismiss:  `[role="dialog"][data-testid="login-modal"] button[aria-label="Close"]`,
	SignInWall:     `[role="dialog"][data-testid="login-modal"]:not(:has(button[aria-label="Close"]))`,
	UsageLimit:     `[data-testid="rate-limit-notice"]`,
	ErrorState:     `[data-testid="answer-error"]`,
}

// Markup of Perplexity's answers beyond its Hooks.
const (
	// perplexityCitation is an inline citation: the 2026 pill that names
	// its page in data-pplx-citation-url, or the 2024 numbered link.
	perplexityCitation = `[data-pplx-citation-url], a.citation`
	// perplexityProse is the 2024 answer's content.
	perplexityProse = `.prose`
	// perplexityQuery is the heading that repeats a turn's prompt (an h1
	// for the first in 2024, a div of class group/query for follow-ups).
	perplexityQuery = `h1, [role="heading"], [class~="group/query"]`
	// perplexityCard is a 2024 source card above the answer.
	perplexityCard = `a[target="_blank"][href]:not(.citation)`
	// perplexitySource is one entry of the 2026 sources tab.
	perplexitySource = `[data-testid="source-item"] a[href]`
	// perplexityQueryStep is one web search of a turn's search steps.
	perplexityQueryStep = `[data-testid="search-query"]`
)

// preparedBy is the line that names the model under a 2026 answer.
var preparedBy = regexp.MustCompile(`^Prepared (?:by|with) (.+)$`)

// ReadPerplexity reads a Perplexity thread page: the first answer inline,
// the follow-ups' in Turns. Each answer's sources are its source cards
// (2024) or its sources tab once opened (2026), else the pages its
// citations link. It returns kisa's Blocked for a human check, a sign-in
// wall or a usage limit, Unavailable for Perplexity's own error, and an
// error wrapping kisa.Unrecognised for a page with no answer it can read.
func ReadPerplexity(page string) (kisa.Answer, error) {
	return read(page, reading{
		hooks:    Perplexity,
		turns:    perplexityTurns,
		citation: perplexityCitation,
		ref:      perplexityRef,
		skip:     `[data-saveai-injected], [data-ask-input-container], #ask-input, .citation-nbsp, [data-testid="model-line"]`,
		lines:    preparedBy,
		sources:  perplexitySources,
		model:    perplexityModel,
		queries: func(t turn) []string {
			var out []string
			t.box.Find(perplexityQueryStep).Each(func(_ int, s *goquery.Selection) {
				if q := normalise(s.Text()); q != "" {
					out = append(out, q)
				}
			})
			return out
		},
	})
}

// perplexityTurns finds the answers in order, each with the turn around
// it: the 2026 answer containers, or the outermost 2024 prose blocks.
func perplexityTurns(doc *goquery.Document) []turn {
	answers := doc.Find(Perplexity.Answer)
	if answers.Length() == 0 {
		answers = doc.Find(perplexityProse).FilterFunction(func(_ int, s *goquery.Selection) bool {
			return s.ParentsFiltered(perplexityProse).Length() == 0
		})
	}
	var out []turn
	answers.Each(func(_ int, a *goquery.Selection) {
		box := a.Closest(Perplexity.Turn)
		if box.Length() == 0 {
			box = a.ParentsFiltered(`*:has(` + perplexityQuery + `)`).First()
		}
		if box.Length() == 0 {
			box = a.Parent()
		}
		content := a
		if lm := a.Find(`[data-renderer="lm"]`); lm.Length() > 0 {
			content = lm
		}
		out = append(out, turn{prompt: textOf(box.Find(perplexityQuery).First()), answer: content, box: box})
	})
	return markLast(out)
}

// perplexityRef reads a citation: the page it links, its label (the
// site's name without "+N"), and the source card it numbers (2024).
func perplexityRef(s *goquery.Selection) ref {
	if u, ok := s.Attr("data-pplx-citation-url"); ok {
		r := ref{url: cleanURL(u)}
		s.Find("span").EachWithBreak(func(_ int, sp *goquery.Selection) bool {
			t := normalise(sp.Text())
			if sp.Children().Length() == 0 && t != "" && !moreLabel.MatchString(t) {
				r.source = t
				return false
			}
			return true
		})
		if r.source == "" && s.Children().Length() == 0 {
			r.source = normalise(s.Text())
		}
		return r
	}
	r := ref{url: cleanURL(s.AttrOr("href", "")), title: normalise(s.AttrOr("aria-label", ""))}
	if n, err := strconv.Atoi(normalise(s.Text())); err == nil {
		r.index = n
	}
	return r
}

// perplexitySources reads a turn's sources: the 2026 sources tab's
// entries, else the 2024 source cards.
func perplexitySources(_ *goquery.Document, t turn) []kisa.Source {
	var list sourceList
	t.box.Find(perplexitySource).Each(func(_ int, a *goquery.Selection) {
		s := linkSource(a, ".source-title", ".source-site")
		s.PublishedAt = a.Find("time[datetime]").First().AttrOr("datetime", "")
		list.add(s)
	})
	if len(list.out) > 0 {
		return list.out
	}
	t.box.Find(perplexityCard).Each(func(_ int, a *goquery.Selection) {
		if a.Closest(perplexityProse).Length() > 0 {
			return
		}
		u := cleanURL(a.AttrOr("href", ""))
		title := firstOf(normalise(a.Find(".line-clamp-3").First().Text()), normalise(a.Parent().AttrOr("aria-label", "")))
		site := normalise(a.Find(".line-clamp-1").First().Text())
		list.add(kisa.Source{URL: u, Title: title, Source: firstOf(site, siteOf(u)), Icon: a.Find("img").First().AttrOr("src", "")})
	})
	return list.out
}

// perplexityModel reads the "Prepared by" line under a 2026 answer.
func perplexityModel(t turn) string {
	model := ""
	t.box.Find(`[data-testid="model-line"], span, div`).EachWithBreak(func(_ int, s *goquery.Selection) bool {
		if s.Children().Length() > 0 {
			return true
		}
		if m := preparedBy.FindStringSubmatch(normalise(s.Text())); m != nil {
			model = strings.TrimSpace(m[1])
			return false
		}
		return true
	})
	return model
}
