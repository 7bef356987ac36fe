package client

import (
	"context"
	"net/http"

	"github.com/kisa-dev/kisa/geo"
)

// The AI assistants, as their endpoints and batch items name them.
const (
	ChatGPT    = "chatgpt"
	Perplexity = "perplexity"
	Gemini     = "gemini"
	Copilot    = "copilot"
)

// assistantPath is the endpoint of assistant (ChatGPT, Perplexity,
// Gemini or Copilot).
func assistantPath(assistant string) string { return "/v1/networks/browser/" + assistant }

// AssistantRequest asks an AI assistant (ChatGPT, Perplexity, Gemini,
// Copilot) a prompt of up to 4000 characters, and optionally up to three
// follow-ups in the same conversation. Empty fields take the API's
// defaults; WebSearch is ChatGPT's only (nil: true).
type AssistantRequest struct {
	Query        string          `json:"query"`
	CountryCode  string          `json:"countryCode,omitempty"`
	LanguageCode string          `json:"languageCode,omitempty"`
	Device       string          `json:"device,omitempty"`
	Location     *geo.Location   `json:"location,omitempty"`
	Screenshots  *bool           `json:"screenshots,omitempty"`
	RawHTML      bool            `json:"rawHtml,omitempty"`
	Fields       *OverviewFields `json:"fields,omitempty"`
	FollowUps    []string        `json:"followUps,omitempty"`
	Cache        *CacheSettings  `json:"cache,omitempty"`
	WebSearch    *bool           `json:"webSearch,omitempty"`
}

// Ask runs req on assistant (ChatGPT, Perplexity, Gemini or Copilot) and
// waits for its answer, which has AI Mode's shape; a validation problem
// is a 422 *Error whose Fields name every field, a human check or sign-in
// wall a 503 *Error.
func (c *Client) Ask(ctx context.Context, assistant string, req AssistantRequest) (AIModeResponse, error) {
	var out AIModeResponse
	_, err := c.Do(ctx, http.MethodPost, assistantPath(assistant), req, &out)
	return out, err
}

// SubmitAsk submits req to assistant as an async job (202) and returns it
// at once; decode its result with Job.AIModeResult.
func (c *Client) SubmitAsk(ctx context.Context, assistant string, req AssistantRequest, webhookURL string) (Job, error) {
	return c.submitAs(ctx, assistantPath(assistant), req, webhookURL)
}

// AssistantItem is req to assistant as a batch item.
func AssistantItem(assistant string, req AssistantRequest) BatchItem {
	return BatchItem{surface: assistant, req: req}
}
