package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"golang.org/x/text/language"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/geo"
	"github.com/kisa-dev/kisa/overview"
	"github.com/kisa-dev/kisa/proxies"
)

// Limits and defaults of the AI overview request (spec 4.5 and 8).
const (
	maxQueryChars   = 500
	defaultCountry  = "at"
	defaultLanguage = "de"
	defaultCacheTTL = 120
	// maxCacheTTL bounds cache.ttl to one day: a cached result hands out
	// fresh 24-hour screenshot URLs, and its screenshots must outlive the
	// last of them (the bucket keeps objects 2 days, see storage).
	maxCacheTTL = 86400
)

var (
	sourceFields   = []string{"url", "title", "source", "icon", "publishedAt", "resolved"}
	citationFields = []string{"url", "title", "source", "favicon", "publishedAt", "resolved"}
)

// validation collects every problem of a request, by field path.
type validation map[string]string

func (v validation) add(path, format string, args ...any) {
	if _, seen := v[path]; !seen {
		v[path] = fmt.Sprintf(format, args...)
	}
}

// overviewBody is a parsed POST body of the overview endpoint: the
// request, whether it is to run as a job, and the job's webhook URL.
type overviewBody struct {
	Request overview.Request
	Async   bool
	Webhook string
}

// allowedItem lists the fields of one request of a batch.
const allowedItem = "query, countryCode, languageCode, device, location, screenshots, rawHtml, fields, cache"

// parseSurfaceBody decodes and validates body, a request of surface,
// with `async` and `webhook`; served are the countries this deployment
// serves; checkURL (nil: no check) vets a webhook URL. Every problem is
// reported at once, in one 422.
func parseSurfaceBody(body []byte, surface kisa.Surface, served proxies.Set, checkURL func(string) error) (overviewBody, error) {
	top, err := decodeJSONObject(body)
	if err != nil {
		return overviewBody{}, err
	}
	v := validation{}
	var out overviewBody
	webhookRaw, hasWebhook := top["webhook"]
	out.Request = parseSurfaceObject(v, top, surface, allowedFields(surface, true), served, func(name string, raw json.RawMessage) bool {
		switch name {
		case "async":
			decodeAs(v, name, raw, &out.Async, "a boolean")
		case "webhook":
		default:
			return false
		}
		return true
	})
	if hasWebhook {
		out.Webhook = parseWebhook(v, "webhook", webhookRaw, checkURL)
		if !out.Async {
			v.add("webhook", `needs "async": true`)
		}
	}
	if len(v) > 0 {
		return overviewBody{}, v.err()
	}
	return out, nil
}

// err is the 422 of every problem found.
func (v validation) err() error {
	return kisa.InvalidFields(v)
}

// parseRequestObject reads the fields of one overview request from top;
// a country that served does not serve is a problem of countryCode; extra
// handles the names it does not know (false: unknown field).
func parseRequestObject(v validation, top map[string]json.RawMessage, allowed string, served proxies.Set, extra func(string, json.RawMessage) bool) overview.Request {
	return parseRequestUpTo(v, top, allowed, served, maxQueryChars, extra)
}

// parseRequestUpTo is parseRequestObject for a query of at most
// maxQuery characters.
func parseRequestUpTo(v validation, top map[string]json.RawMessage, allowed string, served proxies.Set, maxQuery int,
	extra func(string, json.RawMessage) bool) overview.Request {
	req := overview.Request{Country: defaultCountry, Language: defaultLanguage, Device: kisa.DeviceDesktop, Screenshots: true,
		CacheOn: true, CacheTTL: defaultCacheTTL, Fields: overview.Fields{ParagraphText: true, RawHTML: true}}
	for name, raw := range top {
		switch name {
		case "query":
			req.Query = parseText(v, "query", raw, maxQuery)
		case "countryCode":
			req.Country = parseCode(v, name, raw, validCountry, "ISO 3166-1 alpha-2 country code")
		case "languageCode":
			req.Language = parseCode(v, name, raw, validLanguage, "ISO 639-1 language code")
		case "device":
			req.Device = parseDevice(v, raw)
		case "location":
			req.Location = parseLocation(v, raw)
		case "screenshots":
			decodeAs(v, name, raw, &req.Screenshots, "a boolean")
		case "rawHtml":
			decodeAs(v, name, raw, &req.RawHTML, "a boolean")
		case "fields":
			req.Fields = parseFields(v, raw)
		case "cache":
			parseCache(v, raw, &req)
		default:
			if extra == nil || !extra(name, raw) {
				v.add(name, "unknown field; allowed: %s", allowed)
			}
		}
	}
	if _, ok := top["query"]; !ok {
		v.add("query", "is required")
	}
	if validCountry(req.Country) && !served.Serves(req.Country) {
		v.add("countryCode", "this deployment does not serve country %s (see GET /v1/networks/browser/countries)", req.Country)
	}
	if _, bad := v["countryCode"]; !bad {
		if err := req.Location.Check(req.Country); err != nil {
			v.add("location", "%s", err.Error())
		}
	}
	return req
}

// parseDevice reads `device`: one of kisa.Devices.
func parseDevice(v validation, raw json.RawMessage) string {
	var d string
	if !decodeAs(v, "device", raw, &d, "a string") {
		return kisa.DeviceDesktop
	}
	if err := kisa.CheckDevice(d); err != nil {
		v.add("device", "%s", err.Error())
	}
	return d
}

// parseLocation reads `location`: a canonical place name or
// {latitude, longitude}; its problems are keyed location or
// location.<field>.
func parseLocation(v validation, raw json.RawMessage) geo.Location {
	loc, probs := geo.ParseJSON(raw)
	for k, msg := range probs {
		path := "location"
		if k != "" {
			path += "." + k
		}
		v.add(path, "%s", msg)
	}
	return loc
}

// parseWebhook reads {"url": "..."} at path; checkURL vets the URL.
func parseWebhook(v validation, path string, raw json.RawMessage, checkURL func(string) error) string {
	var obj map[string]json.RawMessage
	if !decodeAs(v, path, raw, &obj, "an object") {
		return ""
	}
	var u string
	for k, r := range obj {
		if k != "url" {
			v.add(path+"."+k, "unknown field; allowed: url")
			continue
		}
		if !decodeAs(v, path+".url", r, &u, "a string") {
			continue
		}
		if checkURL != nil {
			if err := checkURL(u); err != nil {
				v.add(path+".url", "%s", err.Error())
			}
		}
	}
	if _, ok := obj["url"]; !ok {
		v.add(path+".url", "is required")
	}
	return u
}

// MaxBatch is the most requests one batch may hold.
const MaxBatch = 100

// batchBody is a parsed batch: its requests and its webhook URL.
type batchBody struct {
	Requests []overview.Request
	Webhook  string
}

// parseBatchBody decodes and validates a batch. Problems of item i are
// keyed requests[i].<field>; every problem is reported at once.
func parseBatchBody(body []byte, served proxies.Set, checkURL func(string) error) (batchBody, error) {
	top, err := decodeJSONObject(body)
	if err != nil {
		return batchBody{}, err
	}
	v := validation{}
	var out batchBody
	for name, raw := range top {
		switch name {
		case "requests":
			out.Requests = parseBatchItems(v, raw, served)
		case "webhook":
			out.Webhook = parseWebhook(v, "webhook", raw, checkURL)
		default:
			v.add(name, "unknown field; allowed: requests, webhook")
		}
	}
	if _, ok := top["requests"]; !ok {
		v.add("requests", "is required")
	}
	if len(v) > 0 {
		return batchBody{}, v.err()
	}
	return out, nil
}

func parseBatchItems(v validation, raw json.RawMessage, served proxies.Set) []overview.Request {
	var items []json.RawMessage
	if !decodeAs(v, "requests", raw, &items, "an array of overview requests") {
		return nil
	}
	if len(items) == 0 || len(items) > MaxBatch {
		v.add("requests", "must hold 1 to %d requests, got %d", MaxBatch, len(items))
		return nil
	}
	out := make([]overview.Request, 0, len(items))
	for i, it := range items {
		path := fmt.Sprintf("requests[%d]", i)
		var obj map[string]json.RawMessage
		if !decodeAs(v, path, it, &obj, "an object") {
			continue
		}
		iv := validation{}
		surface := kisa.SurfaceOverview
		if raw, ok := obj["surface"]; ok {
			surface = parseSurface(iv, raw)
		}
		out = append(out, parseSurfaceObject(iv, obj, surface, allowedFields(surface, false)+", surface", served,
			func(name string, _ json.RawMessage) bool { return name == "surface" }))
		for k, msg := range iv {
			v.add(path+"."+k, "%s", msg)
		}
	}
	return out
}

// decodeAs decodes raw into dst, recording a type problem at path. JSON
// null counts as a wrong type. It reports whether dst was set.
func decodeAs(v validation, path string, raw json.RawMessage, dst any, want string) bool {
	if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) || json.Unmarshal(raw, dst) != nil {
		v.add(path, "must be %s", want)
		return false
	}
	return true
}

func parseCode(v validation, path string, raw json.RawMessage, valid func(string) bool, what string) string {
	var s string
	if !decodeAs(v, path, raw, &s, "a string") {
		return ""
	}
	s = strings.ToLower(strings.TrimSpace(s))
	if !valid(s) {
		v.add(path, "must be an %s", what)
	}
	return s
}

// validCountry reports whether s is an assigned ISO 3166-1 alpha-2 code.
func validCountry(s string) bool {
	if len(s) != 2 {
		return false
	}
	r, err := language.ParseRegion(s)
	return err == nil && r.IsCountry() && strings.EqualFold(r.String(), s)
}

// validLanguage reports whether s is an ISO 639-1 (two-letter) code.
func validLanguage(s string) bool {
	if len(s) != 2 {
		return false
	}
	b, err := language.ParseBase(s)
	return err == nil && b.String() == s
}

func parseCache(v validation, raw json.RawMessage, req *overview.Request) {
	var obj map[string]json.RawMessage
	if !decodeAs(v, "cache", raw, &obj, "an object") {
		return
	}
	for k, r := range obj {
		switch k {
		case "enabled":
			decodeAs(v, "cache.enabled", r, &req.CacheOn, "a boolean")
		case "ttl":
			var f float64
			if !decodeAs(v, "cache.ttl", r, &f, "a number") {
				continue
			}
			if f != math.Trunc(f) || f < 1 || f > maxCacheTTL {
				v.add("cache.ttl", "must be a whole number of seconds from 1 to %d", maxCacheTTL)
				continue
			}
			req.CacheTTL = int(f)
		default:
			v.add("cache."+k, "unknown field; allowed: enabled, ttl")
		}
	}
}

func parseFields(v validation, raw json.RawMessage) overview.Fields {
	sel := overview.Fields{ParagraphText: true, RawHTML: true}
	var obj map[string]json.RawMessage
	if !decodeAs(v, "fields", raw, &obj, "an object") {
		return sel
	}
	for k, r := range obj {
		switch k {
		case "sources":
			sel.Sources = parseFieldList(v, "fields.sources", r, sourceFields)
		case "citations":
			sel.Citations = parseFieldList(v, "fields.citations", r, citationFields)
		case "paragraphs":
			parseParagraphFields(v, r, &sel)
		case "rawHtml":
			decodeAs(v, "fields.rawHtml", r, &sel.RawHTML, "a boolean")
		default:
			v.add("fields."+k, "unknown field; allowed: sources, citations, paragraphs, rawHtml")
		}
	}
	return sel
}

func parseParagraphFields(v validation, raw json.RawMessage, sel *overview.Fields) {
	var obj map[string]json.RawMessage
	if !decodeAs(v, "fields.paragraphs", raw, &obj, "an object") {
		return
	}
	for k, r := range obj {
		switch k {
		case "text":
			decodeAs(v, "fields.paragraphs.text", r, &sel.ParagraphText, "a boolean")
		case "citations":
			sel.ParagraphCitation = parseFieldList(v, "fields.paragraphs.citations", r, citationFields)
		default:
			v.add("fields.paragraphs."+k, "unknown field; allowed: text, citations")
		}
	}
}

// parseFieldList reads a list of field names, each one of allowed.
func parseFieldList(v validation, path string, raw json.RawMessage, allowed []string) []string {
	var items []json.RawMessage
	if !decodeAs(v, path, raw, &items, "an array of field names") {
		return nil
	}
	if len(items) == 0 {
		v.add(path, "must list at least one of: %s", strings.Join(allowed, ", "))
		return nil
	}
	out := make([]string, 0, len(items))
	for i, it := range items {
		p := fmt.Sprintf("%s[%d]", path, i)
		var name string
		if !decodeAs(v, p, it, &name, "a string") {
			continue
		}
		if !slices.Contains(allowed, name) {
			v.add(p, "unknown field %q; allowed: %s", name, strings.Join(allowed, ", "))
			continue
		}
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}
