package client

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/kisa-dev/kisa/geo"
)

// Cluster is a knowledge-base cluster (spec 2.1).
type Cluster struct {
	ID        string         `json:"id"`
	Name      string         `json:"name"`
	Type      string         `json:"type"`
	Metadata  map[string]any `json:"metadata"`
	CreatedAt time.Time      `json:"created_at"`
	UpdatedAt time.Time      `json:"updated_at"`
}

// Integration is a third-party integration (spec 2.2).
type Integration struct {
	ID        string         `json:"id"`
	Provider  string         `json:"provider"`
	Metadata  map[string]any `json:"metadata"`
	CreatedAt time.Time      `json:"created_at"`
}

// Secret is a stored secret; Value is always "********" (spec 2.3).
type Secret struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Value     string    `json:"value"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// OverviewRequest asks for the AI overview of a results page (spec 4.5).
// Empty fields take the API's defaults (country at, language de,
// screenshots on, caching on for 120 s, every field).
type OverviewRequest struct {
	Query        string `json:"query"`
	CountryCode  string `json:"countryCode,omitempty"`
	LanguageCode string `json:"languageCode,omitempty"`
	// Device is "desktop" (the API's default) or "mobile".
	Device string `json:"device,omitempty"`
	// Location narrows the place inside the country: a canonical place
	// name ({Name: "Munich,Bavaria,Germany"}) or coordinates ({Point:
	// &geo.Point{...}}); nil for the whole country.
	Location    *geo.Location   `json:"location,omitempty"`
	Screenshots *bool           `json:"screenshots,omitempty"`
	RawHTML     bool            `json:"rawHtml,omitempty"` // also answer a URL of the page's HTML (gzip)
	Fields      *OverviewFields `json:"fields,omitempty"`
	Cache       *CacheSettings  `json:"cache,omitempty"`
}

// OverviewFields selects the fields of sources, citations and paragraphs.
type OverviewFields struct {
	Sources    []string        `json:"sources,omitempty"`
	Citations  []string        `json:"citations,omitempty"`
	Paragraphs *ParagraphField `json:"paragraphs,omitempty"`
	RawHTML    *bool           `json:"rawHtml,omitempty"` // false drops rawHtml (default true)
}

// ParagraphField selects the fields of paragraphs.
type ParagraphField struct {
	Text      *bool    `json:"text,omitempty"`
	Citations []string `json:"citations,omitempty"`
}

// CacheSettings turn the result cache on or off and set its lifetime.
type CacheSettings struct {
	Enabled *bool `json:"enabled,omitempty"`
	TTL     int   `json:"ttl,omitempty"` // seconds, 1 to 86400
}

// OverviewResponse is the answer of the AI overview endpoint.
type OverviewResponse struct {
	IsCached       bool     `json:"isCached"`
	CacheExpiresIn *int     `json:"cacheExpiresIn"`
	Results        Overview `json:"results"`
}

// Overview is the AI overview of one results page (spec 2.4). Fields
// left out by OverviewFields are empty.
type Overview struct {
	HasOverview bool `json:"hasOverview"`
	// Complete is false when the overview was still streaming when the
	// page was read; the other fields hold what was there.
	Complete    bool         `json:"complete"`
	Text        string       `json:"text"`
	Paragraphs  []Paragraph  `json:"paragraphs"`
	Citations   []Citation   `json:"citations"`
	Sources     []Source     `json:"sources"`
	Screenshots *Screenshots `json:"screenshots,omitempty"`
	RawHTML     string       `json:"rawHtml,omitempty"` // presigned URL of the page's HTML, when asked for
}

// Paragraph is one paragraph of the overview with its citations.
type Paragraph struct {
	Text      string     `json:"text"`
	Citations []Citation `json:"citations"`
}

// Citation is an inline reference of the overview.
type Citation struct {
	URL     string `json:"url,omitempty"`
	Title   string `json:"title,omitempty"`
	Source  string `json:"source,omitempty"`
	Favicon string `json:"favicon,omitempty"`
	// Position is the citation's 1-based place in a conversation's
	// answer (AI Mode, the assistants); 0 on the overview.
	Position int `json:"position,omitempty"`
	LinkState
}

// LinkState is what a citation or source shows beside its link.
type LinkState struct {
	// PublishedAt is the date its card shows (YYYY-MM-DD, or as shown for
	// a day without a year); empty when it shows none.
	PublishedAt string `json:"publishedAt,omitempty"`
	// Resolved is set when the page links through the engine's opaque
	// redirect: true when URL is the target, false when URL is the
	// redirect link itself.
	Resolved *bool `json:"resolved,omitempty"`
}

// Source is a website listed beside the overview.
type Source struct {
	URL    string `json:"url,omitempty"`
	Title  string `json:"title,omitempty"`
	Source string `json:"source,omitempty"`
	Icon   string `json:"icon,omitempty"`
	// Position and Cited are a conversation's answer's (AI Mode, the
	// assistants): the source's 1-based place in the list the page shows,
	// and whether an inline citation points at it.
	Position int   `json:"position,omitempty"`
	Cited    *bool `json:"cited,omitempty"`
	LinkState
}

// Screenshots are presigned PNG URLs, valid for 24 hours.
type Screenshots struct {
	Initial     string `json:"initial"`
	AfterLoad   string `json:"afterLoad"`
	AfterExpand string `json:"afterExpand"`
}

// ListClusters returns the account's knowledge-base clusters, oldest first.
func (c *Client) ListClusters(ctx context.Context) ([]Cluster, error) {
	var out []Cluster
	_, err := c.Do(ctx, http.MethodGet, "/v1/knowledgebase", nil, &out)
	return out, err
}

// ListIntegrations returns the account's integrations, oldest first.
func (c *Client) ListIntegrations(ctx context.Context) ([]Integration, error) {
	var out []Integration
	_, err := c.Do(ctx, http.MethodGet, "/v1/integrations", nil, &out)
	return out, err
}

// GetIntegration returns one integration; an unknown id is a 404 *Error.
func (c *Client) GetIntegration(ctx context.Context, id string) (Integration, error) {
	var out Integration
	_, err := c.Do(ctx, http.MethodGet, "/v1/integrations/"+escape(id), nil, &out)
	return out, err
}

// GetSecret returns one secret, its value masked; an unknown id is a 404 *Error.
func (c *Client) GetSecret(ctx context.Context, id string) (Secret, error) {
	var out Secret
	_, err := c.Do(ctx, http.MethodGet, "/v1/secrets/"+escape(id), nil, &out)
	return out, err
}

// Overview runs an AI overview request and waits for its answer; a
// validation problem is a 422 *Error whose Fields name every field.
func (c *Client) Overview(ctx context.Context, req OverviewRequest) (OverviewResponse, error) {
	var out OverviewResponse
	_, err := c.Do(ctx, http.MethodPost, "/v1/networks/browser/ai-overview", req, &out)
	return out, err
}

// CompletionRequest is a chat-completion request (spec 4.6). Extra holds
// any other field the upstream understands (temperature, max_tokens, ...).
type CompletionRequest struct {
	Model    string         `json:"model"`
	Messages []Message      `json:"messages"`
	Extra    map[string]any `json:"-"`
}

// Message is one chat message.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// MarshalJSON writes the request with its Extra fields.
func (r CompletionRequest) MarshalJSON() ([]byte, error) {
	m := map[string]any{}
	for k, v := range r.Extra {
		m[k] = v
	}
	m["model"], m["messages"] = r.Model, r.Messages
	return json.Marshal(m)
}

// Completion is the upstream's chat completion, as it answered it.
type Completion struct {
	ID      string `json:"id"`
	Model   string `json:"model"`
	Choices []struct {
		Index        int     `json:"index"`
		Message      Message `json:"message"`
		FinishReason string  `json:"finish_reason"`
	} `json:"choices"`
	Usage map[string]any `json:"usage,omitempty"`
}

// Complete runs a chat completion and returns the upstream's answer.
func (c *Client) Complete(ctx context.Context, req CompletionRequest) (Completion, error) {
	var out Completion
	_, err := c.Do(ctx, http.MethodPost, "/v1/completions", req, &out)
	return out, err
}

// CompleteStream runs a chat completion with "stream": true and calls
// each with the data of every server-sent event as it arrives (the last
// is usually "[DONE]"). An answer that is not a stream is an *Error.
// It is not retried.
func (c *Client) CompleteStream(ctx context.Context, req CompletionRequest, each func(data string) error) error {
	extra := map[string]any{"stream": true}
	for k, v := range req.Extra {
		extra[k] = v
	}
	req.Extra = extra
	body, err := json.Marshal(req)
	if err != nil {
		return fmt.Errorf("kisa: encode request: %w", err)
	}
	res, err := c.send(ctx, http.MethodPost, "/v1/completions", body, "text/event-stream")
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		b, _ := io.ReadAll(res.Body)
		r := &Response{StatusCode: res.StatusCode, Header: res.Header, Body: b}
		if err := decodeAnswer(r, nil); err != nil {
			return err
		}
		return apiError(r, "the answer is not an event stream", envelope{})
	}
	return readEvents(res.Body, each)
}

// readEvents calls each with the data of every event of an SSE stream.
func readEvents(r io.Reader, each func(string) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	var data []string
	for sc.Scan() {
		line := sc.Text()
		if line == "" && data != nil {
			if err := each(strings.Join(data, "\n")); err != nil {
				return err
			}
			data = nil
			continue
		}
		if v, ok := strings.CutPrefix(line, "data:"); ok {
			data = append(data, strings.TrimPrefix(v, " "))
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("kisa: read event stream: %w", err)
	}
	return nil
}
