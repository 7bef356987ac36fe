package kisa

// The results page has more surfaces than the AI overview (result.go):
// Google's AI Mode, the conversational answer at udm=50, and the organic
// web results of the results page; and the AI assistants' own pages
// (ChatGPT, Perplexity, Gemini, Copilot) are conversations like AI Mode.
// Each is what one extractor reads from one kind of page.

// Surface names one kind of page the service reads; it is the last part
// of the endpoint's path, a metric label and a cache key space.
type Surface string

// The surfaces.
const (
	SurfaceOverview Surface = "ai-overview"
	SurfaceAIMode   Surface = "ai-mode"
	SurfaceWeb      Surface = "web-search"
	// The AI assistants, each read from its own site.
	SurfaceChatGPT    Surface = "chatgpt"
	SurfacePerplexity Surface = "perplexity"
	SurfaceGemini     Surface = "gemini"
	SurfaceCopilot    Surface = "copilot"
)

// Surfaces lists the surfaces in the order the API documents them.
var Surfaces = []Surface{SurfaceOverview, SurfaceAIMode, SurfaceWeb,
	SurfaceChatGPT, SurfacePerplexity, SurfaceGemini, SurfaceCopilot}

// Assistants lists the AI assistants' surfaces: conversations on a site
// of their own rather than on the search engine.
var Assistants = []Surface{SurfaceChatGPT, SurfacePerplexity, SurfaceGemini, SurfaceCopilot}

// Assistant reports whether s is an AI assistant's surface (Assistants).
func (s Surface) Assistant() bool {
	switch s {
	case SurfaceChatGPT, SurfacePerplexity, SurfaceGemini, SurfaceCopilot:
		return true
	}
	return false
}

// Conversational reports whether a visit of s asks prompts and reads a
// kisa.Answer: AI Mode and the assistants.
func (s Surface) Conversational() bool { return s == SurfaceAIMode || s.Assistant() }

// OrOverview returns s, or SurfaceOverview when s is empty (requests and tasks
// from before surfaces existed).
func (s Surface) OrOverview() Surface {
	if s == "" {
		return SurfaceOverview
	}
	return s
}

// ShotNames returns the names of the screenshots a visit of s takes, in
// order; none for web search, AIModeShotNames for every conversation.
func (s Surface) ShotNames() []string {
	switch s = s.OrOverview(); {
	case s.Conversational():
		return AIModeShotNames
	case s == SurfaceWeb:
		return nil
	}
	return ShotNames
}

// Link is a web page an answer offers beyond its sources: a link in the
// answer's text.
type Link struct {
	URL    string `json:"url"`
	Title  string `json:"title"`
	Source string `json:"source"`
}

// AnswerTurn is one answer of a conversation (AI Mode's or an
// assistant's): to the query, or to one follow-up prompt asked after it.
type AnswerTurn struct {
	// Query is the prompt the turn answers, as the page shows it.
	Query string `json:"query"`
	// Complete is false when the answer was still streaming when the
	// page was read.
	Complete bool   `json:"complete"`
	Text     string `json:"text"`
	// Markdown is the answer as Markdown with numbered citation markers
	// ([1] is Citations[0]); answer surfaces only.
	Markdown     string      `json:"markdown,omitempty"`
	Paragraphs   []Paragraph `json:"paragraphs"`
	Citations    []Citation  `json:"citations"`
	Sources      []Source    `json:"sources"`
	RelatedLinks []Link      `json:"relatedLinks"`
	// Model and SearchQueries are the model and the web searches the
	// page shows for this answer, when it shows them.
	Model         string   `json:"model,omitempty"`
	SearchQueries []string `json:"searchQueries,omitempty"`
}

// Reasons why an answer page holds no answer (Answer.Reason).
const (
	// ReasonNotAvailable: the page says that AI Mode is not offered in
	// the country (or language) of the request, e.g. in France.
	ReasonNotAvailable = "not_available"
)

// Answer is what extraction reads from a conversational answer page (AI
// Mode, and the AI assistants' own pages): the answer
// to the query (the first turn, inline) and one entry per follow-up in
// Turns.
type Answer struct {
	// HasAnswer is false when the page holds no answer; Reason says why.
	HasAnswer bool   `json:"hasAnswer"`
	Reason    string `json:"reason,omitempty"`
	AnswerTurn
	// Turns are the answers to the follow-up prompts, in order.
	Turns []AnswerTurn `json:"turns"`
}

// OrganicResult is one organic web result of a results page.
type OrganicResult struct {
	// Position is 1-based and counts organic results only.
	Position int    `json:"position"`
	Title    string `json:"title"`
	// URL is the target page, not a redirect through the search engine.
	URL         string `json:"url"`
	Description string `json:"description"`
}

// WebResults is what extraction reads from a results page's organic
// results; ads, "People also ask", videos, maps and the AI overview are
// not among them.
type WebResults struct {
	Organic []OrganicResult `json:"organic"`
}

// Screenshot names of a conversation's visit (AI Mode, an assistant)
// besides ShotInitial (the page before the question): the question typed,
// and the whole answer at its full height.
const (
	ShotBeforeSubmit = "beforeSubmit"
	ShotResponse     = "response"
)

// AIModeShotNames lists the screenshots of a conversation's visit (AI
// Mode's and every assistant's) in the order they are taken.
var AIModeShotNames = []string{ShotInitial, ShotBeforeSubmit, ShotResponse}
