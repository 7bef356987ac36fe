// Package assistants holds the pages the fixture sites of the AI
// assistants serve (ChatGPT, Perplexity, Gemini, Copilot): each engine's
// conversation page as a template (<engine>.html.tmpl) in its states (an
// answer streaming or finished, the sources panel closed or open, a
// cookie banner and a dismissable sign-in nag over it), and its notices
// as pages (<engine>-signin-wall.html, <engine>-usage-limit.html,
// <engine>-error.html), beside the human checks the engines are put behind
// (cloudflare-check.html, google-recaptcha.html) and a layout no reading
// knows (unknown-layout.html). The markup is modelled on the real pages
// worker/assistants is tested on; docs/surfaces.md says what is real and
// what is modelled. The fixture server serves them; the readers of
// worker/assistants read the finished pages and refuse the others.
package assistants

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"slices"
)

//go:embed *.html *.html.tmpl
var files embed.FS

// The engines whose sites are here, as their page files are named.
const (
	ChatGPT    = "chatgpt"
	Perplexity = "perplexity"
	Gemini     = "gemini"
	Copilot    = "copilot"
)

// Engines lists the engines in the order the API documents them.
var Engines = []string{ChatGPT, Perplexity, Gemini, Copilot}

// The notices an engine's site can serve instead of an answer (Notice).
const (
	// NoticeHumanCheck is the human check the engine is put behind:
	// Cloudflare's interstitial, or Google's reCAPTCHA for Gemini.
	NoticeHumanCheck = "human-check"
	// NoticeSignInWall is a sign-in demand that cannot be dismissed.
	NoticeSignInWall = "signin-wall"
	// NoticeUsageLimit says the visitor's messages are spent.
	NoticeUsageLimit = "usage-limit"
	// NoticeError is the engine's own error in place of the answer.
	NoticeError = "error"
	// NoticeUnknown is an answer in a layout no reading knows.
	NoticeUnknown = "unknown"
)

// Notices lists the notices every engine's site serves.
var Notices = []string{NoticeHumanCheck, NoticeSignInWall, NoticeUsageLimit, NoticeError, NoticeUnknown}

// Page is the state of a conversation page.
type Page struct {
	// Prompts are the prompt and the follow-ups asked so far, in order;
	// each has its answer on the page.
	Prompts []string
	// Streaming says the last answer is still being written: it shows
	// its first paragraph only, the engine's streaming sign and the stop
	// control, and no action bar.
	Streaming bool
	// SourcesOpen says the last answer's sources panel was opened.
	SourcesOpen bool
	// CookieBanner and SignInNag put the engine's cookie banner and its
	// dismissable sign-in nag over the page.
	CookieBanner bool
	SignInNag    bool
}

// turn is what a template gets for one exchange.
type turn struct {
	Prompt string
	// Index counts from 0, N from 1; UserTurn and AnswerTurn number the
	// exchange's two halves as ChatGPT numbers its turns.
	Index, N, UserTurn, AnswerTurn int
	Streaming, SourcesOpen, Last   bool
}

// view is a template's data.
type view struct {
	Page
	Title string
	Turns []turn
}

var templates = template.Must(template.ParseFS(files, "*.html.tmpl"))

// Render returns engine's conversation page in state p; without prompts,
// its start page (the composer, no turns). It returns an error for an
// engine it does not know.
func Render(engine string, p Page) ([]byte, error) {
	if !slices.Contains(Engines, engine) {
		return nil, fmt.Errorf("assistants: no site for engine %q", engine)
	}
	v := view{Page: p}
	if len(p.Prompts) > 0 {
		v.Title = p.Prompts[0]
	}
	for i, q := range p.Prompts {
		last := i == len(p.Prompts)-1
		v.Turns = append(v.Turns, turn{Prompt: q, Index: i, N: i + 1, UserTurn: 2*i + 1, AnswerTurn: 2*i + 2,
			Last: last, Streaming: last && p.Streaming, SourcesOpen: last && p.SourcesOpen})
	}
	var buf bytes.Buffer
	if err := templates.ExecuteTemplate(&buf, engine+".html.tmpl", v); err != nil {
		return nil, fmt.Errorf("assistants: render %s: %w", engine, err)
	}
	return buf.Bytes(), nil
}

// Notice returns the page engine's site serves for notice (one of
// Notices). It returns an error for an engine or a notice it does not
// know.
func Notice(engine, notice string) ([]byte, error) {
	if !slices.Contains(Engines, engine) {
		return nil, fmt.Errorf("assistants: no site for engine %q", engine)
	}
	name := engine + "-" + notice + ".html"
	switch notice {
	case NoticeHumanCheck:
		name = "cloudflare-check.html"
		if engine == Gemini {
			name = "google-recaptcha.html"
		}
	case NoticeUnknown:
		name = "unknown-layout.html"
	case NoticeSignInWall, NoticeUsageLimit, NoticeError:
	default:
		return nil, fmt.Errorf("assistants: no notice %q", notice)
	}
	return files.ReadFile(name)
}
