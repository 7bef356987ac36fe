package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/kisa-dev/kisa/geo"
)

// Paths of the other surfaces of the browser.
const (
	aiModePath    = "/v1/networks/browser/ai-mode"
	webSearchPath = "/v1/networks/browser/web-search"
)

// AIModeRequest asks Google's AI Mode a question, and optionally up to
// three follow-ups in the same conversation. Empty fields take the API's
// defaults (as OverviewRequest's).
type AIModeRequest struct {
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
}

// AIModeResponse is the answer of the AI Mode endpoint.
type AIModeResponse struct {
	IsCached       bool         `json:"isCached"`
	CacheExpiresIn *int         `json:"cacheExpiresIn"`
	Results        AIModeAnswer `json:"results"`
}

// AIModeAnswer is AI Mode's answer to the query, with one entry per
// follow-up in Turns. HasAnswer is false, with a Reason
// ("not_available"), where AI Mode is not offered.
type AIModeAnswer struct {
	HasAnswer bool   `json:"hasAnswer"`
	Reason    string `json:"reason,omitempty"`
	AnswerTurn
	Turns       []AnswerTurn       `json:"turns"`
	Screenshots *AIModeScreenshots `json:"screenshots,omitempty"`
	RawHTML     string             `json:"rawHtml,omitempty"`
}

// AnswerTurn is one answer of the conversation (AI Mode's or an
// assistant's).
type AnswerTurn struct {
	Query        string        `json:"query,omitempty"` // the follow-up, in Turns
	Complete     bool          `json:"complete"`
	Text         string        `json:"text"`
	Markdown     string        `json:"markdown"` // with numbered citation markers
	Paragraphs   []Paragraph   `json:"paragraphs"`
	Citations    []Citation    `json:"citations"`
	Sources      []Source      `json:"sources"`
	RelatedLinks []RelatedLink `json:"relatedLinks"`
	// Model and SearchQueries are shown by some assistants' pages.
	Model         string   `json:"model,omitempty"`
	SearchQueries []string `json:"searchQueries,omitempty"`
}

// RelatedLink is a link an answer offers beyond its sources.
type RelatedLink struct {
	URL    string `json:"url"`
	Title  string `json:"title"`
	Source string `json:"source"`
}

// AIModeScreenshots are presigned PNG URLs, valid for 24 hours.
type AIModeScreenshots struct {
	Initial      string `json:"initial"`
	BeforeSubmit string `json:"beforeSubmit"`
	Response     string `json:"response"`
}

// WebSearchRequest asks for the organic results of a results page.
// MaxResults is 1 to 10 (0: the API's 10); Fields any of position, title,
// url, description (nil: all).
type WebSearchRequest struct {
	Query        string         `json:"query"`
	CountryCode  string         `json:"countryCode,omitempty"`
	LanguageCode string         `json:"languageCode,omitempty"`
	Device       string         `json:"device,omitempty"`
	Location     *geo.Location  `json:"location,omitempty"`
	RawHTML      bool           `json:"rawHtml,omitempty"`
	MaxResults   int            `json:"maxResults,omitempty"`
	Fields       []string       `json:"fields,omitempty"`
	Cache        *CacheSettings `json:"cache,omitempty"`
}

// WebSearchResponse is the answer of the web search endpoint.
type WebSearchResponse struct {
	IsCached       bool       `json:"isCached"`
	CacheExpiresIn *int       `json:"cacheExpiresIn"`
	Results        WebResults `json:"results"`
}

// WebResults are the organic results of a results page.
type WebResults struct {
	Organic []OrganicResult `json:"organic"`
	RawHTML string          `json:"rawHtml,omitempty"`
}

// OrganicResult is one organic result: Position counts organic results
// only, URL is the target page.
type OrganicResult struct {
	Position    int    `json:"position,omitempty"`
	Title       string `json:"title,omitempty"`
	URL         string `json:"url,omitempty"`
	Description string `json:"description,omitempty"`
}

// AIMode runs an AI Mode request and waits for its answer; a validation
// problem is a 422 *Error whose Fields name every field.
func (c *Client) AIMode(ctx context.Context, req AIModeRequest) (AIModeResponse, error) {
	var out AIModeResponse
	_, err := c.Do(ctx, http.MethodPost, aiModePath, req, &out)
	return out, err
}

// WebSearch runs a web search and waits for its organic results; a
// validation problem is a 422 *Error whose Fields name every field.
func (c *Client) WebSearch(ctx context.Context, req WebSearchRequest) (WebSearchResponse, error) {
	var out WebSearchResponse
	_, err := c.Do(ctx, http.MethodPost, webSearchPath, req, &out)
	return out, err
}

// BatchItem is one request of a batch of any surface; make it with
// OverviewItem, AIModeItem or WebSearchItem.
type BatchItem struct {
	surface string
	req     any
}

// OverviewItem is req as a batch item.
func OverviewItem(req OverviewRequest) BatchItem { return BatchItem{req: req} }

// AIModeItem is req as a batch item.
func AIModeItem(req AIModeRequest) BatchItem { return BatchItem{surface: "ai-mode", req: req} }

// WebSearchItem is req as a batch item.
func WebSearchItem(req WebSearchRequest) BatchItem { return BatchItem{surface: "web-search", req: req} }

// MarshalJSON encodes the request with its surface.
func (b BatchItem) MarshalJSON() ([]byte, error) {
	raw, err := json.Marshal(b.req)
	if err != nil {
		return nil, err
	}
	if b.surface == "" {
		return raw, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("encode batch item: %w", err)
	}
	m["surface"], _ = json.Marshal(b.surface)
	return json.Marshal(m)
}

// SubmitBatchItems submits requests of any surfaces as one batch of
// async jobs (202); webhookURL (may be empty) is called once every job
// has ended.
func (c *Client) SubmitBatchItems(ctx context.Context, items []BatchItem, webhookURL string) (Batch, error) {
	body := struct {
		Requests []BatchItem  `json:"requests"`
		Webhook  *webhookSpec `json:"webhook,omitempty"`
	}{items, hook(webhookURL)}
	var out Batch
	_, err := c.Do(ctx, http.MethodPost, overviewPath+"/batch", body, &out)
	return out, err
}

// SubmitAIMode submits req as an async job (202) and returns it at once.
func (c *Client) SubmitAIMode(ctx context.Context, req AIModeRequest, webhookURL string) (Job, error) {
	return c.submitAs(ctx, aiModePath, req, webhookURL)
}

// SubmitWebSearch submits req as an async job (202) and returns it at once.
func (c *Client) SubmitWebSearch(ctx context.Context, req WebSearchRequest, webhookURL string) (Job, error) {
	return c.submitAs(ctx, webSearchPath, req, webhookURL)
}

// submitAs posts req to path with "async": true and the webhook.
func (c *Client) submitAs(ctx context.Context, path string, req any, webhookURL string) (Job, error) {
	raw, err := json.Marshal(req)
	if err != nil {
		return Job{}, err
	}
	body := map[string]any{}
	if err := json.Unmarshal(raw, &body); err != nil {
		return Job{}, err
	}
	body["async"] = true
	if w := hook(webhookURL); w != nil {
		body["webhook"] = w
	}
	var out Job
	_, err = c.Do(ctx, http.MethodPost, path, body, &out)
	return out, err
}

// AIModeResult decodes the result of a done job of an AI Mode request.
func (j Job) AIModeResult() (AIModeResponse, error) {
	var out AIModeResponse
	return out, j.decodeResult(&out)
}

// WebSearchResult decodes the result of a done job of a web search.
func (j Job) WebSearchResult() (WebSearchResponse, error) {
	var out WebSearchResponse
	return out, j.decodeResult(&out)
}

// decodeResult decodes the job's result as it came into out.
func (j Job) decodeResult(out any) error {
	if len(j.rawResult) == 0 {
		return fmt.Errorf("job %s has no result (status %s)", j.ID, j.Status)
	}
	return json.Unmarshal(j.rawResult, out)
}
