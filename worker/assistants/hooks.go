// Package assistants reads the AI assistants' own answer pages: ChatGPT,
// Perplexity, Gemini and Copilot. Google's pages (the overview, AI Mode,
// web results) stay in worker/serp.
//
// Each engine has one file with everything the service knows about its
// page: the hooks the browser drives it by (Hooks, one value per engine)
// and the reading of its answer markup, a pure function of the page's
// HTML (ReadChatGPT, ReadPerplexity, ReadGemini, ReadCopilot) that returns
// the whole conversation as a kisa.Answer. read.go holds the reading they
// share: answer blocks to paragraphs, text and Markdown with numbered
// citation markers, citations and sources. The real pages the readings
// are tested on are in testdata/ (see testdata/README.md); the fixture
// sites' pages are in serpfixture/assistants.
package assistants

// Hooks are the in-page handles of one engine's answer page: what the
// browser types into, clicks and waits for, and what tells the page's
// states apart. Each is a CSS selector (Chromium's and goquery's dialect,
// :has included); an empty one means the engine has no such thing.
type Hooks struct {
	// Engine names the engine, as a message tells it ("ChatGPT").
	Engine string
	// Composer is the prompt box; Send submits it; Stop is the control
	// that stops an answer while it streams (it turns back into Send when
	// the answer is finished).
	Composer string
	Send     string
	Stop     string
	// Turn is one exchange (or one answer) of the conversation, Answer
	// the answer's content inside it.
	Turn   string
	Answer string
	// Streaming matches the last turn, or an element inside it, while
	// its answer is still being written; Finished matches inside it once
	// it is whole (the answer's action bar, a finished footer).
	Streaming string
	Finished  string
	// SourcesControl opens the sources panel where the engine hides the
	// answer's sources behind a control; SourcesPanel is that panel.
	SourcesControl string
	SourcesPanel   string
	// CookieReject and SignInDismiss are the buttons a person clicks to
	// dismiss a cookie banner (refusing what can be refused) and a
	// sign-in nag that lets them go on without signing in.
	CookieReject  string
	SignInDismiss string
	// SignInWall is a sign-in demand that cannot be dismissed (no
	// SignInDismiss beside it, no composer): kisa.Blocked.
	SignInWall string
	// UsageLimit is the notice that the visitor's messages are spent:
	// kisa.Blocked.
	UsageLimit string
	// ErrorState is the engine's own error in place of an answer
	// ("Something went wrong"): kisa.Unavailable.
	ErrorState string
}

// HumanCheck matches the human checks the engines' pages are put behind:
// Cloudflare's "Just a moment" interstitial and Turnstile, Google's
// reCAPTCHA and "unusual traffic" form, and Arkose's puzzle. Any of them
// on a page is kisa.Blocked.
const HumanCheck = `#challenge-form, #challenge-stage, #challenge-running, #cf-challenge-running, ` +
	`.cf-turnstile, input[name="cf-turnstile-response"], iframe[src*="challenges.cloudflare.com"], ` +
	`.g-recaptcha, iframe[src*="/recaptcha/"], #captcha-form, form[action*="/sorry/"], ` +
	`iframe[src*="arkoselabs"], #FunCaptcha`

// HumanCheckTitles start the titles of human-check pages, in the
// languages met so far (a last guard beside HumanCheck).
var HumanCheckTitles = []string{"Just a moment", "Un instant", "Einen Moment", "Un momento", "Attention Required"}

// UsageLimitPhrases start the usage-limit notices met so far (a last
// guard beside each engine's UsageLimit hook).
var UsageLimitPhrases = []string{
	"You've reached our limit of messages",
	"You've hit the free plan limit",
	"You've reached your limit",
	"You've reached the limit",
	"You have reached the limit",
	"You've reached the current usage cap",
	"Usage limit reached",
}

// ErrorPhrases start the engines' own error messages met so far (a last
// guard beside each engine's ErrorState hook).
var ErrorPhrases = []string{
	"Something went wrong",
	"Sorry, something went wrong",
	"An error occurred",
	"Network error",
	"Hmm...something seems to have gone wrong",
}
