package api

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/overview"
	"github.com/kisa-dev/kisa/proxies"
)

// Limits and defaults of the AI Mode and web search requests.
const (
	// maxFollowUps is the most further prompts an AI Mode request asks.
	maxFollowUps = 3
	// maxWebQueryChars bounds a web search's query.
	maxWebQueryChars = 100
	// maxWebResults is the most (and the default number of) organic
	// results a web search answers.
	maxWebResults = 10
	// maxPromptChars bounds an assistant's query and each of its
	// follow-ups.
	maxPromptChars = 4000
)

// organicFields are the fields of one organic result.
var organicFields = []string{"position", "title", "url", "description"}

// The fields of a request of each surface besides async and webhook; a
// batch item also has "surface".
const (
	allowedAIModeItem = "query, countryCode, languageCode, device, location, screenshots, rawHtml, fields, cache, followUps"
	allowedWebItem    = "query, countryCode, languageCode, device, location, rawHtml, fields, cache, maxResults"
	// allowedAssistantItem is an assistant's request; ChatGPT's has
	// webSearch too.
	allowedAssistantItem = allowedAIModeItem
)

// allowedFields returns the fields a request of surface may have: those
// of a batch item (top false) or of a body of its own.
func allowedFields(surface kisa.Surface, top bool) string {
	var list string
	switch surface {
	case kisa.SurfaceAIMode:
		list = allowedAIModeItem
	case kisa.SurfaceWeb:
		list = allowedWebItem
	case kisa.SurfaceChatGPT:
		list = allowedAssistantItem + ", webSearch"
	case kisa.SurfacePerplexity, kisa.SurfaceGemini, kisa.SurfaceCopilot:
		list = allowedAssistantItem
	default:
		list = allowedItem
	}
	if top {
		return list + ", async, webhook"
	}
	return list
}

// parseSurfaceObject reads one request of surface from top: the
// overview's fields (parseRequestObject) and those of the surface, which
// replace or add to them. extra handles the other names (false: unknown
// field).
func parseSurfaceObject(v validation, top map[string]json.RawMessage, surface kisa.Surface, allowed string, served proxies.Set,
	extra func(string, json.RawMessage) bool) overview.Request {
	switch surface {
	case kisa.SurfaceAIMode:
		return parseAIModeObject(v, top, allowed, served, extra)
	case kisa.SurfaceWeb:
		return parseWebObject(v, top, allowed, served, extra)
	}
	if surface.Assistant() {
		return parseAssistantObject(v, top, surface, allowed, served, extra)
	}
	return parseRequestObject(v, top, allowed, served, extra)
}

// parseAIModeObject reads an AI Mode request: the overview's fields and
// followUps.
func parseAIModeObject(v validation, top map[string]json.RawMessage, allowed string, served proxies.Set,
	extra func(string, json.RawMessage) bool) overview.Request {
	var followUps []string
	req := parseRequestObject(v, top, allowed, served, func(name string, raw json.RawMessage) bool {
		if name == "followUps" {
			followUps = parseFollowUps(v, raw, maxQueryChars)
			return true
		}
		return extra != nil && extra(name, raw)
	})
	req.Surface, req.FollowUps = kisa.SurfaceAIMode, followUps
	return req
}

// parseAssistantObject reads a request of an AI assistant (surface): AI
// Mode's fields with prompts of up to maxPromptChars, and for ChatGPT
// webSearch (default true).
func parseAssistantObject(v validation, top map[string]json.RawMessage, surface kisa.Surface, allowed string, served proxies.Set,
	extra func(string, json.RawMessage) bool) overview.Request {
	var followUps []string
	webSearch := true
	req := parseRequestUpTo(v, top, allowed, served, maxPromptChars, func(name string, raw json.RawMessage) bool {
		switch {
		case name == "followUps":
			followUps = parseFollowUps(v, raw, maxPromptChars)
		case name == "webSearch" && surface == kisa.SurfaceChatGPT:
			decodeAs(v, name, raw, &webSearch, "a boolean")
		default:
			return extra != nil && extra(name, raw)
		}
		return true
	})
	req.Surface, req.FollowUps = surface, followUps
	req.WebSearch = surface == kisa.SurfaceChatGPT && webSearch
	return req
}

// parseWebObject reads a web search request: the overview's fields but
// screenshots (a web search takes none), its own fields (a list of
// organicFields) and maxResults, a query of at most maxWebQueryChars.
func parseWebObject(v validation, top map[string]json.RawMessage, allowed string, served proxies.Set,
	extra func(string, json.RawMessage) bool) overview.Request {
	own := maps.Clone(top)
	delete(own, "fields")
	delete(own, "maxResults")
	delete(own, "screenshots")
	req := parseRequestObject(v, own, allowed, served, extra)
	req.Surface, req.Screenshots, req.MaxResults = kisa.SurfaceWeb, false, maxWebResults
	if _, ok := top["screenshots"]; ok {
		v.add("screenshots", "unknown field; allowed: %s", allowed)
	}
	if raw, ok := top["fields"]; ok {
		req.Fields.Organic = parseFieldList(v, "fields", raw, organicFields)
	}
	if raw, ok := top["maxResults"]; ok {
		req.MaxResults = parseCount(v, "maxResults", raw, 1, maxWebResults)
	}
	if n := utf8.RuneCountInString(req.Query); n > maxWebQueryChars {
		v.add("query", "must be at most %d characters, got %d", maxWebQueryChars, n)
	}
	return req
}

// parseFollowUps reads followUps: 1 to maxFollowUps prompts, each like a
// query of at most max characters.
func parseFollowUps(v validation, raw json.RawMessage, max int) []string {
	var items []json.RawMessage
	if !decodeAs(v, "followUps", raw, &items, "an array of prompts") {
		return nil
	}
	if len(items) == 0 || len(items) > maxFollowUps {
		v.add("followUps", "must hold 1 to %d prompts, got %d", maxFollowUps, len(items))
		return nil
	}
	out := make([]string, 0, len(items))
	for i, it := range items {
		out = append(out, parseText(v, fmt.Sprintf("followUps[%d]", i), it, max))
	}
	return out
}

// parseText reads a text at path like a query: whitespace folded, 1 to
// max characters, no control characters.
func parseText(v validation, path string, raw json.RawMessage, max int) string {
	var s string
	if !decodeAs(v, path, raw, &s, "a string") {
		return ""
	}
	s = strings.Join(strings.Fields(s), " ")
	switch n := utf8.RuneCountInString(s); {
	case n == 0:
		v.add(path, "must not be empty")
	case n > max:
		v.add(path, "must be at most %d characters, got %d", max, n)
	case hasControl(s):
		v.add(path, "must not contain control characters")
	}
	return s
}

// parseCount reads a whole number from lo to hi at path.
func parseCount(v validation, path string, raw json.RawMessage, lo, hi int) int {
	var f float64
	if !decodeAs(v, path, raw, &f, "a number") {
		return hi
	}
	if f != math.Trunc(f) || f < float64(lo) || f > float64(hi) {
		v.add(path, "must be a whole number from %d to %d", lo, hi)
		return hi
	}
	return int(f)
}

// parseSurface reads a batch item's surface.
func parseSurface(v validation, raw json.RawMessage) kisa.Surface {
	var s string
	if !decodeAs(v, "surface", raw, &s, "a string") {
		return kisa.SurfaceOverview
	}
	for _, known := range kisa.Surfaces {
		if kisa.Surface(s) == known {
			return known
		}
	}
	names := make([]string, 0, len(kisa.Surfaces))
	for _, known := range kisa.Surfaces {
		names = append(names, string(known))
	}
	v.add("surface", "must be one of: %s", strings.Join(names, ", "))
	return kisa.SurfaceOverview
}
