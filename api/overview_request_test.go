package api

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/geo"
	"github.com/kisa-dev/kisa/overview"
	"github.com/kisa-dev/kisa/proxies"
)

// parseOverviewBody is parseSurfaceBody for the overview.
func parseOverviewBody(body []byte, served proxies.Set, checkURL func(string) error) (overviewBody, error) {
	return parseSurfaceBody(body, kisa.SurfaceOverview, served, checkURL)
}

// parseOverviewRequest is parseOverviewBody for a synchronous body. A body
// that is not one strict JSON object (decodeJSONObject) is a 400; every
// other problem is a 422 naming all fields.
func parseOverviewRequest(body []byte, served proxies.Set) (overview.Request, error) {
	b, err := parseOverviewBody(body, served, nil)
	return b.Request, err
}

// defaults is the request {"query":"coffee"} becomes.
func defaults() overview.Request {
	return overview.Request{Query: "coffee", Country: "at", Language: "de", Device: kisa.DeviceDesktop, Screenshots: true,
		CacheOn: true, CacheTTL: 120, Fields: overview.Fields{ParagraphText: true, RawHTML: true}}
}

// with returns the defaults changed by f.
func with(f func(r *overview.Request)) overview.Request {
	r := defaults()
	f(&r)
	return r
}

// invalid is the 422 carrying fields.
func invalid(fields map[string]string) *kisa.Error {
	return kisa.InvalidFields(fields)
}

const (
	msgCountry  = "must be an ISO 3166-1 alpha-2 country code"
	msgLanguage = "must be an ISO 639-1 language code"
	msgTTL      = "must be a whole number of seconds from 1 to 86400"
	msgTopLevel = "unknown field; allowed: query, countryCode, languageCode, device, location, screenshots, rawHtml, fields, cache, async, webhook"
	msgDevice   = "must be one of: desktop, mobile"
	msgLocation = "must be a place name or {latitude, longitude}"
)

func TestParseOverviewRequest(t *testing.T) {
	notObject := kisa.Failf(kisa.BadRequest, "request body must be a JSON object")
	tests := []struct {
		name    string
		body    string
		want    overview.Request
		wantErr *kisa.Error
	}{
		// Defaults and accepted values.
		{name: "defaults", body: `{"query":"coffee"}`, want: defaults()},
		{name: "whitespace folded, case kept", body: `{"query":"  Best \t coffee\n in  Wien "}`,
			want: with(func(r *overview.Request) { r.Query = "Best coffee in Wien" })},
		{name: "500 characters", body: `{"query":"` + strings.Repeat("a", 500) + `"}`,
			want: with(func(r *overview.Request) { r.Query = strings.Repeat("a", 500) })},
		{name: "500 two-byte characters", body: `{"query":"` + strings.Repeat("é", 500) + `"}`,
			want: with(func(r *overview.Request) { r.Query = strings.Repeat("é", 500) })},
		{name: "codes in upper case", body: `{"query":"coffee","countryCode":"US","languageCode":"EN"}`,
			want: with(func(r *overview.Request) { r.Country, r.Language = "us", "en" })},
		{name: "codes in lower case", body: `{"query":"coffee","countryCode":"gb","languageCode":"fr"}`,
			want: with(func(r *overview.Request) { r.Country, r.Language = "gb", "fr" })},
		{name: "screenshots off, cache off", body: `{"query":"coffee","screenshots":false,"cache":{"enabled":false}}`,
			want: with(func(r *overview.Request) { r.Screenshots, r.CacheOn = false, false })},
		{name: "ttl 1", body: `{"query":"coffee","cache":{"ttl":1}}`,
			want: with(func(r *overview.Request) { r.CacheTTL = 1 })},
		{name: "ttl 86400", body: `{"query":"coffee","cache":{"enabled":true,"ttl":86400}}`,
			want: with(func(r *overview.Request) { r.CacheTTL = 86400 })},
		{name: "ttl 60.0 is whole", body: `{"query":"coffee","cache":{"ttl":60.0}}`,
			want: with(func(r *overview.Request) { r.CacheTTL = 60 })},
		{name: "fields selected", body: `{"query":"coffee","fields":{"sources":["url","title","url"],"citations":["favicon"],"paragraphs":{"text":false,"citations":["url","title"]}}}`,
			want: with(func(r *overview.Request) {
				r.Fields = overview.Fields{Sources: []string{"url", "title"}, Citations: []string{"favicon"},
					ParagraphText: false, ParagraphCitation: []string{"url", "title"}, RawHTML: true}
			})},
		{name: "raw HTML asked for, fields drop it", body: `{"query":"coffee","rawHtml":true,"fields":{"rawHtml":false}}`,
			want: with(func(r *overview.Request) { r.RawHTML, r.Fields.RawHTML = true, false })},
		{name: "empty fields keep all", body: `{"query":"coffee","fields":{},"cache":{}}`, want: defaults()},
		{name: "mobile", body: `{"query":"coffee","device":"mobile"}`,
			want: with(func(r *overview.Request) { r.Device = kisa.DeviceMobile })},
		{name: "desktop said", body: `{"query":"coffee","device":"desktop"}`, want: defaults()},
		{name: "place name", body: `{"query":"coffee","countryCode":"de","location":"Munich,Bavaria,Germany"}`,
			want: with(func(r *overview.Request) { r.Country, r.Location = "de", geo.Location{Name: "Munich,Bavaria,Germany"} })},
		{name: "coordinates", body: `{"query":"coffee","countryCode":"de","location":{"latitude":48.137,"longitude":11.575}}`,
			want: with(func(r *overview.Request) {
				r.Country, r.Location = "de", geo.Location{Point: &geo.Point{Latitude: 48.137, Longitude: 11.575}}
			})},
		{name: "place in the default country", body: `{"query":"coffee","location":"Graz,Styria,Austria","device":"mobile"}`,
			want: with(func(r *overview.Request) {
				r.Location, r.Device = geo.Location{Name: "Graz,Styria,Austria"}, kisa.DeviceMobile
			})},

		// Each rule.
		{name: "query missing", body: `{}`, wantErr: invalid(map[string]string{"query": "is required"})},
		{name: "query empty", body: `{"query":""}`, wantErr: invalid(map[string]string{"query": "must not be empty"})},
		{name: "query whitespace only", body: `{"query":" \t\n "}`, wantErr: invalid(map[string]string{"query": "must not be empty"})},
		{name: "query 501 characters", body: `{"query":"` + strings.Repeat("a", 501) + `"}`,
			wantErr: invalid(map[string]string{"query": "must be at most 500 characters, got 501"})},
		{name: "query 501 two-byte characters", body: `{"query":"` + strings.Repeat("é", 501) + `"}`,
			wantErr: invalid(map[string]string{"query": "must be at most 500 characters, got 501"})},
		{name: "query a number", body: `{"query":5}`, wantErr: invalid(map[string]string{"query": "must be a string"})},
		{name: "query null", body: `{"query":null}`, wantErr: invalid(map[string]string{"query": "must be a string"})},
		{name: "screenshots a string", body: `{"query":"coffee","screenshots":"yes"}`,
			wantErr: invalid(map[string]string{"screenshots": "must be a boolean"})},
		{name: "cache.ttl a string", body: `{"query":"coffee","cache":{"ttl":"60"}}`,
			wantErr: invalid(map[string]string{"cache.ttl": "must be a number"})},
		{name: "cache.ttl 0", body: `{"query":"coffee","cache":{"ttl":0}}`, wantErr: invalid(map[string]string{"cache.ttl": msgTTL})},
		{name: "cache.ttl negative", body: `{"query":"coffee","cache":{"ttl":-5}}`, wantErr: invalid(map[string]string{"cache.ttl": msgTTL})},
		{name: "cache.ttl 86401", body: `{"query":"coffee","cache":{"ttl":86401}}`, wantErr: invalid(map[string]string{"cache.ttl": msgTTL})},
		{name: "cache.ttl 1.5", body: `{"query":"coffee","cache":{"ttl":1.5}}`, wantErr: invalid(map[string]string{"cache.ttl": msgTTL})},
		{name: "cache.enabled a string", body: `{"query":"coffee","cache":{"enabled":"no"}}`,
			wantErr: invalid(map[string]string{"cache.enabled": "must be a boolean"})},
		{name: "cache not an object", body: `{"query":"coffee","cache":true}`,
			wantErr: invalid(map[string]string{"cache": "must be an object"})},
		{name: "unknown cache field", body: `{"query":"coffee","cache":{"ttlSeconds":60}}`,
			wantErr: invalid(map[string]string{"cache.ttlSeconds": "unknown field; allowed: enabled, ttl"})},
		{name: "fields.sources a string", body: `{"query":"coffee","fields":{"sources":"url"}}`,
			wantErr: invalid(map[string]string{"fields.sources": "must be an array of field names"})},
		{name: "fields.sources empty", body: `{"query":"coffee","fields":{"sources":[]}}`,
			wantErr: invalid(map[string]string{"fields.sources": "must list at least one of: url, title, source, icon, publishedAt, resolved"})},
		{name: "unknown source field", body: `{"query":"coffee","fields":{"sources":["url","colour"]}}`,
			wantErr: invalid(map[string]string{"fields.sources[1]": `unknown field "colour"; allowed: url, title, source, icon, publishedAt, resolved`})},
		{name: "source field not a string", body: `{"query":"coffee","fields":{"sources":[7]}}`,
			wantErr: invalid(map[string]string{"fields.sources[0]": "must be a string"})},
		{name: "icon is no citation field", body: `{"query":"coffee","fields":{"citations":["url","icon"]}}`,
			wantErr: invalid(map[string]string{"fields.citations[1]": `unknown field "icon"; allowed: url, title, source, favicon, publishedAt, resolved`})},
		{name: "paragraph fields wrong", body: `{"query":"coffee","fields":{"paragraphs":{"text":"yes","citations":["colour"],"links":true}}}`,
			wantErr: invalid(map[string]string{
				"fields.paragraphs.text":         "must be a boolean",
				"fields.paragraphs.citations[0]": `unknown field "colour"; allowed: url, title, source, favicon, publishedAt, resolved`,
				"fields.paragraphs.links":        "unknown field; allowed: text, citations",
			})},
		{name: "unknown fields key", body: `{"query":"coffee","fields":{"images":["url"]}}`,
			wantErr: invalid(map[string]string{"fields.images": "unknown field; allowed: sources, citations, paragraphs, rawHtml"})},
		{name: "unknown top-level field", body: `{"query":"coffee","colour":"red"}`,
			wantErr: invalid(map[string]string{"colour": msgTopLevel})},
		{name: "country xx", body: `{"query":"coffee","countryCode":"xx"}`, wantErr: invalid(map[string]string{"countryCode": msgCountry})},
		{name: "country ZZ", body: `{"query":"coffee","countryCode":"ZZ"}`, wantErr: invalid(map[string]string{"countryCode": msgCountry})},
		{name: "country of three letters", body: `{"query":"coffee","countryCode":"AUT"}`, wantErr: invalid(map[string]string{"countryCode": msgCountry})},
		{name: "country empty", body: `{"query":"coffee","countryCode":""}`, wantErr: invalid(map[string]string{"countryCode": msgCountry})},
		{name: "country a number", body: `{"query":"coffee","countryCode":43}`, wantErr: invalid(map[string]string{"countryCode": "must be a string"})},
		{name: "language xx", body: `{"query":"coffee","languageCode":"xx"}`, wantErr: invalid(map[string]string{"languageCode": msgLanguage})},
		{name: "language zz", body: `{"query":"coffee","languageCode":"zz"}`, wantErr: invalid(map[string]string{"languageCode": msgLanguage})},
		{name: "language eng", body: `{"query":"coffee","languageCode":"eng"}`, wantErr: invalid(map[string]string{"languageCode": msgLanguage})},
		{name: "language with region", body: `{"query":"coffee","languageCode":"de-AT"}`, wantErr: invalid(map[string]string{"languageCode": msgLanguage})},
		{name: "device tablet", body: `{"query":"coffee","device":"tablet"}`, wantErr: invalid(map[string]string{"device": msgDevice})},
		{name: "device upper case", body: `{"query":"coffee","device":"Mobile"}`, wantErr: invalid(map[string]string{"device": msgDevice})},
		{name: "device a boolean", body: `{"query":"coffee","device":true}`, wantErr: invalid(map[string]string{"device": "must be a string"})},
		{name: "location a number", body: `{"query":"coffee","location":48}`, wantErr: invalid(map[string]string{"location": msgLocation})},
		{name: "location null", body: `{"query":"coffee","location":null}`, wantErr: invalid(map[string]string{"location": msgLocation})},
		{name: "location empty", body: `{"query":"coffee","location":""}`, wantErr: invalid(map[string]string{"location": "must not be empty"})},
		{name: "location with an empty part", body: `{"query":"coffee","location":"Graz,,Austria"}`,
			wantErr: invalid(map[string]string{"location": `must be a canonical place name, its parts separated by commas, e.g. "Munich,Bavaria,Germany"`})},
		{name: "latitude out of range", body: `{"query":"coffee","location":{"latitude":90.5,"longitude":11}}`,
			wantErr: invalid(map[string]string{"location.latitude": "must be from -90 to 90 degrees"})},
		{name: "longitude missing, latitude a string", body: `{"query":"coffee","location":{"latitude":"48"}}`,
			wantErr: invalid(map[string]string{"location.latitude": "must be a number of decimal degrees", "location.longitude": "is required"})},
		{name: "unknown location field", body: `{"query":"coffee","location":{"lat":48,"latitude":48,"longitude":11}}`,
			wantErr: invalid(map[string]string{"location.lat": "unknown field; allowed: latitude, longitude"})},
		{name: "place in another country", body: `{"query":"coffee","countryCode":"at","location":"Munich,Bavaria,Germany"}`,
			wantErr: invalid(map[string]string{"location": `names a place in "Germany", not in Austria (countryCode "at"); its last part must be "Austria"`})},
		{name: "coordinates in another country", body: `{"query":"coffee","countryCode":"jp","location":{"latitude":48.137,"longitude":11.575}}`,
			wantErr: invalid(map[string]string{"location": `lies outside Japan (countryCode "jp")`})},
		{name: "a bad country is not also a contradiction", body: `{"query":"coffee","countryCode":"xx","location":"Munich,Bavaria,Germany"}`,
			wantErr: invalid(map[string]string{"countryCode": msgCountry})},
		{name: "every problem at once",
			body: `{"query":5,"countryCode":"xx","languageCode":"eng","screenshots":"yes","cache":{"ttl":0,"enabled":"no"},"fields":{"sources":["colour"]},"extra":1}`,
			wantErr: invalid(map[string]string{
				"query": "must be a string", "countryCode": msgCountry, "languageCode": msgLanguage,
				"screenshots": "must be a boolean", "cache.ttl": msgTTL, "cache.enabled": "must be a boolean",
				"fields.sources[0]": `unknown field "colour"; allowed: url, title, source, icon, publishedAt, resolved`, "extra": msgTopLevel,
			})},
		{name: "missing query reported with the rest", body: `{"screenshots":1}`,
			wantErr: invalid(map[string]string{"query": "is required", "screenshots": "must be a boolean"})},

		// Not a JSON object: 400.
		{name: "not JSON", body: `query=coffee`, wantErr: kisa.Failf(kisa.BadRequest, "request body is not valid JSON (at byte 0)")},
		{name: "truncated JSON", body: `{"query":"coffee"`, wantErr: kisa.Failf(kisa.BadRequest, "request body ends inside its JSON value (at byte 17)")},
		{name: "JSON array", body: `[{"query":"coffee"}]`, wantErr: notObject},
		{name: "JSON string", body: `"coffee"`, wantErr: notObject},
		{name: "JSON null", body: `null`, wantErr: notObject},
		{name: "empty", body: ``, wantErr: notObject},
		{name: "two objects", body: `{"query":"a"}{"query":"b"}`, wantErr: kisa.Failf(kisa.BadRequest, "request body has data after its JSON value (at byte 13)")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseOverviewRequest([]byte(tt.body), proxies.Set{})
			if tt.wantErr != nil {
				if diff := cmp.Diff(error(tt.wantErr), err); diff != "" {
					t.Errorf("error mismatch (-want +got):\n%s", diff)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("request mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
