package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"strings"

	"github.com/kisa-dev/kisa/client"
)

// Paths of the other surfaces of the browser.
const (
	aiModePath    = "/v1/networks/browser/ai-mode"
	webSearchPath = "/v1/networks/browser/web-search"
)

// surfaceCommands are the commands of AI Mode and web search.
func surfaceCommands() []clientCommand {
	return []clientCommand{
		{"ai-mode", "<query>", "ask Google's AI Mode (and --follow-up prompts) and wait for the answer", defineAIMode},
		{"web-search", "<query>", "read the organic results of a results page and wait for them", defineWebSearch},
		{client.ChatGPT, "<prompt>", "ask ChatGPT (--no-web-search, --follow-up prompts) and wait for the answer", defineAssistant(client.ChatGPT)},
		{client.Perplexity, "<prompt>", "ask Perplexity (and --follow-up prompts) and wait for the answer", defineAssistant(client.Perplexity)},
		{client.Gemini, "<prompt>", "ask Gemini (and --follow-up prompts) and wait for the answer", defineAssistant(client.Gemini)},
		{client.Copilot, "<prompt>", "ask Copilot (and --follow-up prompts) and wait for the answer", defineAssistant(client.Copilot)},
	}
}

// repeated is a flag that may be given several times.
type repeated []string

func (r *repeated) String() string     { return strings.Join(*r, ", ") }
func (r *repeated) Set(s string) error { *r = append(*r, s); return nil }

// commonFlags are the flags every surface's request takes.
type commonFlags struct {
	country, lang, device, location *string
	rawHTML, noCache, async         *bool
	ttl                             *int
	webhook                         *string
}

func defineCommon(fs *flag.FlagSet) commonFlags {
	return commonFlags{
		country:  fs.String("country", "", "ISO 3166-1 alpha-2 country code (API default at)"),
		lang:     fs.String("language", "", "ISO 639-1 language code (API default de)"),
		device:   fs.String("device", "", "desktop or mobile (API default desktop)"),
		location: fs.String("location", "", `place inside the country: a canonical name or "latitude,longitude"`),
		rawHTML:  fs.Bool("raw-html", false, "also answer a URL of the page's HTML (results.rawHtml)"),
		noCache:  fs.Bool("no-cache", false, "neither read nor write the result cache"),
		ttl:      fs.Int("ttl", 0, "cache lifetime in seconds, 1 to 86400 (API default 120)"),
		async:    fs.Bool("async", false, "submit as an async job and print it at once (202)"),
		webhook:  fs.String("webhook", "", "with --async: URL to call, signed, when the job ends"),
	}
}

// cache is the request's cache setting, nil for the API's default.
func (f commonFlags) cache() *client.CacheSettings {
	if !*f.noCache && *f.ttl == 0 {
		return nil
	}
	c := &client.CacheSettings{TTL: *f.ttl}
	if *f.noCache {
		c.Enabled = new(bool)
	}
	return c
}

// call posts req to path, as an async job with --async or --webhook.
func (f commonFlags) call(path string, req any) (clientCall, error) {
	if !*f.async && *f.webhook == "" {
		return clientCall{method: http.MethodPost, path: path, body: req}, nil
	}
	body := map[string]any{"async": true}
	b, err := json.Marshal(req)
	if err != nil {
		return clientCall{}, err
	}
	if err := json.Unmarshal(b, &body); err != nil {
		return clientCall{}, err
	}
	if *f.webhook != "" {
		body["webhook"] = map[string]string{"url": *f.webhook}
	}
	return clientCall{method: http.MethodPost, path: path, body: body}, nil
}

func defineAIMode(fs *flag.FlagSet) func([]string) (clientCall, error) {
	c := defineCommon(fs)
	noShots := fs.Bool("no-screenshots", false, "ask for no screenshots")
	fields := fs.String("fields", "", `field selection as JSON, e.g. '{"sources":["url","title"]}'`)
	var followUps repeated
	fs.Var(&followUps, "follow-up", "a further prompt asked in the same conversation (up to 3, in order)")
	return func(args []string) (clientCall, error) {
		if len(args) != 1 {
			return clientCall{}, errors.New("give the query as one argument (quote it)")
		}
		req := client.AIModeRequest{Query: args[0], CountryCode: *c.country, LanguageCode: *c.lang, Device: *c.device,
			Location: parseLocationFlag(*c.location), RawHTML: *c.rawHTML, FollowUps: followUps, Cache: c.cache()}
		if *noShots {
			req.Screenshots = new(bool)
		}
		if *fields != "" {
			req.Fields = &client.OverviewFields{}
			if err := json.Unmarshal([]byte(*fields), req.Fields); err != nil {
				return clientCall{}, fmt.Errorf("--fields: %w", err)
			}
		}
		return c.call(aiModePath, req)
	}
}

// defineAssistant defines the command of an AI assistant: AI Mode's
// flags, and for ChatGPT --no-web-search.
func defineAssistant(assistant string) func(fs *flag.FlagSet) func([]string) (clientCall, error) {
	return func(fs *flag.FlagSet) func([]string) (clientCall, error) {
		c := defineCommon(fs)
		noShots := fs.Bool("no-screenshots", false, "ask for no screenshots")
		fields := fs.String("fields", "", `field selection as JSON, e.g. '{"sources":["url","title"]}'`)
		var followUps repeated
		fs.Var(&followUps, "follow-up", "a further prompt asked in the same conversation (up to 3, in order)")
		var noSearch *bool
		if assistant == client.ChatGPT {
			noSearch = fs.Bool("no-web-search", false, "answer without searching the web (webSearch false)")
		}
		return func(args []string) (clientCall, error) {
			if len(args) != 1 {
				return clientCall{}, errors.New("give the prompt as one argument (quote it)")
			}
			req := client.AssistantRequest{Query: args[0], CountryCode: *c.country, LanguageCode: *c.lang, Device: *c.device,
				Location: parseLocationFlag(*c.location), RawHTML: *c.rawHTML, FollowUps: followUps, Cache: c.cache()}
			if *noShots {
				req.Screenshots = new(bool)
			}
			if noSearch != nil && *noSearch {
				req.WebSearch = new(bool)
			}
			if *fields != "" {
				req.Fields = &client.OverviewFields{}
				if err := json.Unmarshal([]byte(*fields), req.Fields); err != nil {
					return clientCall{}, fmt.Errorf("--fields: %w", err)
				}
			}
			return c.call("/v1/networks/browser/"+assistant, req)
		}
	}
}

func defineWebSearch(fs *flag.FlagSet) func([]string) (clientCall, error) {
	c := defineCommon(fs)
	maxResults := fs.Int("max-results", 0, "organic results to answer, 1 to 10 (API default 10)")
	fields := fs.String("fields", "", "fields of each result, comma-separated: position, title, url, description")
	return func(args []string) (clientCall, error) {
		if len(args) != 1 {
			return clientCall{}, errors.New("give the query as one argument (quote it)")
		}
		req := client.WebSearchRequest{Query: args[0], CountryCode: *c.country, LanguageCode: *c.lang, Device: *c.device,
			Location: parseLocationFlag(*c.location), RawHTML: *c.rawHTML, MaxResults: *maxResults, Cache: c.cache()}
		if *fields != "" {
			for _, f := range strings.Split(*fields, ",") {
				req.Fields = append(req.Fields, strings.TrimSpace(f))
			}
		}
		return c.call(webSearchPath, req)
	}
}
