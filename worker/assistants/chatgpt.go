package assistants

import (
	"regexp"
	"strings"

	"github.com/PuerkitoBio/goquery"
	"github.com/kisa-dev/kisa"
)

// ChatGPT's page (chatgpt.com, 2025-2026). The turns, the answer, the
// citation pills, the model slug and the action bar are real markup
// (testdata/chatgpt-*.html and the scrapers named in docs/surfaces.md);
// the sources panel, the cookie banner, the sign-in dialogs and the
// usage-limit notice are modelled (see docs/surfaces.md).
var ChatGPT = Hooks{
	Engine: "ChatGPT",
	// A ProseMirror editor (a contenteditable div kept the old
	// textarea's id): typed keys or insertText reach its model, a
	// written value does not.
	Composer:  `#prompt-textarea`,
	Send:      `button[data-testid="send-button"]`,
	Stop:      `button[data-testid="stop-button"]`,
	Turn:      `[data-testid^="conversation-turn-"]`,
	Answer:    `[data-message-author-role="assistant"] .markdown`,
	Streaming: `.result-streaming`,
	Finished:  `[data-testid="copy-turn-action-button"]`,
	// The action bar's last button, with the sources' icons and the word
	// "Sources"; it opens the panel on the right.
	SourcesControl: `[data-testid="copy-turn-action-button"] ~ button:has(img)`,
	SourcesPanel:   chatGPTPanel,
	CookieReject:   `[data-testid="cookie-banner"] button[data-testid="reject-button"]`,
	SignInDismiss:  `[role="dialog"] [data-testid="close-button"], [role="dialog"] a[data-testid="stay-logged-out"]`,
	SignInWall:     `[role="dialog"]:has([data-testid="login-button"]):not(:has([data-testid="close-button"], [data-testid="stay-logged-out"]))`,
	UsageLimit:     `[data-testid="usage-limit-notice"]`,
	ErrorState:     `.text-token-text-error`,
}

// Markup of ChatGPT's answers beyond its Hooks.
const (
	// chatGPTMessage is one message; its role attribute says whose.
	chatGPTMessage = `[data-message-author-role]`
	// chatGPTPill is an inline citation: a pill linking the first page it
	// stands for, labelled with the site's name (and "+N" more).
	chatGPTPill = `[data-testid="webpage-citation-pill"]`
	// chatGPTPanel is the sources panel: the aside on the right that
	// lists the answer's sources ("Citations", then "More").
	chatGPTPanel = `aside:has(ul > li > a[target="_blank"])`
	// chatGPTModel carries the model's slug on an assistant message.
	chatGPTModel = `data-message-model-slug`
)

// moreLabel is a pill's "+N": how many more pages it stands for.
var moreLabel = regexp.MustCompile(`^\+\d+$`)

// ReadChatGPT reads a ChatGPT conversation page (the page's HTML once the
// answers have streamed, the sources panel opened when the browser opened
// it): the first answer inline, the follow-ups' in Turns. The sources of
// the last answer are the panel's when the page shows it, else (and for
// earlier answers) the pages the citation pills link. It returns kisa's
// Blocked for a human check, a sign-in wall or a usage limit,
// Unavailable for ChatGPT's own error, and an error wrapping
// kisa.Unrecognised for a page with no answer it can read.
func ReadChatGPT(page string) (kisa.Answer, error) {
	return read(page, reading{
		hooks:    ChatGPT,
		turns:    chatGPTTurns,
		citation: chatGPTPill,
		ref:      chatGPTRef,
		skip:     `h1.sr-only, h4.sr-only, h5.sr-only, h6.sr-only`,
		sources:  chatGPTSources,
		model: func(t turn) string {
			return t.box.Find(`[`+chatGPTModel+`]`).Last().AttrOr(chatGPTModel, "")
		},
	})
}

// chatGPTTurns pairs each assistant turn with the prompt before it.
func chatGPTTurns(doc *goquery.Document) []turn {
	var out []turn
	prompt := ""
	boxes := doc.Find(ChatGPT.Turn)
	if boxes.Length() == 0 { // older pages: messages without turn wrappers
		boxes = doc.Find(chatGPTMessage)
	}
	boxes.Each(func(_ int, box *goquery.Selection) {
		role := box.AttrOr("data-turn", box.AttrOr("data-message-author-role", ""))
		if role == "" {
			role = box.Find(chatGPTMessage).First().AttrOr("data-message-author-role", "")
		}
		switch role {
		case "user":
			p := box.Find(`.whitespace-pre-wrap`)
			if box.Is(chatGPTMessage) {
				p = box
			}
			prompt = normalise(p.First().Text())
		case "assistant":
			ans := box.Find(`.markdown`)
			if ans.Length() == 0 {
				return
			}
			out = append(out, turn{prompt: prompt, answer: ans, box: box})
			prompt = ""
		}
	})
	return markLast(out)
}

// chatGPTRef reads a citation pill: the page it links and the site's
// name it shows.
func chatGPTRef(s *goquery.Selection) ref {
	a := s.Find("a[href]").First()
	if s.Is("a[href]") {
		a = s
	}
	r := ref{url: cleanURL(a.AttrOr("href", ""))}
	s.Find("span").EachWithBreak(func(_ int, sp *goquery.Selection) bool {
		if sp.Children().Length() > 0 {
			return true
		}
		t := normalise(sp.Text())
		if t != "" && !moreLabel.MatchString(t) {
			r.source = t
			return false
		}
		return true
	})
	if r.source == "" {
		r.source = siteOf(r.url)
	}
	return r
}

// chatGPTSources reads the sources panel for the last turn: each entry
// links its page and shows the site's name, the page's title and a
// snippet, in that order.
func chatGPTSources(doc *goquery.Document, t turn) []kisa.Source {
	if !t.last {
		return nil
	}
	var list sourceList
	doc.Find(chatGPTPanel).Last().Find(`ul > li > a[target="_blank"]`).Each(func(_ int, a *goquery.Selection) {
		u := cleanURL(a.AttrOr("href", ""))
		var parts []string
		a.Find("div").Each(func(_ int, d *goquery.Selection) {
			if d.Children().Not("img, span").Length() == 0 {
				if txt := normalise(d.Text()); txt != "" {
					parts = append(parts, txt)
				}
			}
		})
		s := kisa.Source{URL: u, Icon: a.Find("img").First().AttrOr("src", "")}
		if len(parts) > 0 {
			s.Source = parts[0]
		}
		if len(parts) > 1 {
			s.Title = parts[1]
		}
		s.Source = firstOf(s.Source, siteOf(u))
		s.Title = firstOf(s.Title, strings.TrimSpace(a.AttrOr("title", "")))
		list.add(s)
	})
	return list.out
}
