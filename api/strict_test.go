package api

import (
	"net/http"
	"strings"
	"testing"

	"github.com/kisa-dev/kisa/testenv"
)

// postOverview sends body to the overview endpoint with key.
func postOverview(tb testing.TB, h http.Handler, key, body string) response {
	tb.Helper()
	req := request(http.MethodPost, "/v1/networks/browser/ai-overview", key, body)
	req.Header.Set("Content-Type", "application/json")
	return do(tb, h, req)
}

// failure is the envelope of a rejection, as JSON.
func failure(tb testing.TB, msg string, fields map[string]string) string {
	tb.Helper()
	return testenv.MustJSON(tb, errorBody{Error: msg, Errors: fields})
}

// TestStrictInput sends what an attacker would through the real router.
// A body that passes validation reaches the runner, absent here: 503.
func TestStrictInput(t *testing.T) {
	ts := newTestServer(t, 0)
	_, key := newCaller(t, ts.db)
	accepted := failure(t, "the overview service is unavailable; try again shortly", nil)
	bad := func(msg string) string { return failure(t, msg, nil) }
	invalid := func(fields map[string]string) string { return failure(t, "validation failed", fields) }
	query := func(s string) string { return `{"query":"` + s + `"}` }
	nested := func(open, close string, n int) string {
		return `{"query":"x","x":` + strings.Repeat(open, n) + strings.Repeat(close, n) + `}`
	}
	const (
		mustString = "must be a string"
		mustBool   = "must be a boolean"
		mustObject = "must be an object"
		controls   = "must not contain control characters"
		tooLong    = "must be at most 500 characters, got 501"
	)
	tests := []struct {
		name string
		body string
		want int
		// wantBody is the exact JSON answered.
		wantBody string
	}{
		// Size.
		{name: "10 MB body", body: query(strings.Repeat("a", 10<<20)),
			want: 413, wantBody: bad("request body is larger than 1048576 bytes")},

		// Nesting: 16 levels are read (and x is then unknown), 17 are not.
		{name: "16 levels", body: nested("[", "]", 15), want: 422, wantBody: invalid(map[string]string{"x": msgTopLevel})},
		{name: "17 levels", body: nested("[", "]", 16),
			want: 400, wantBody: bad("request body nests deeper than 16 levels (at byte 32)")},
		{name: "17 levels of objects", body: `{"query":"x","x":` + strings.Repeat(`{"a":`, 16) + `1` + strings.Repeat(`}`, 17),
			want: 400, wantBody: bad("request body nests deeper than 16 levels (at byte 92)")},
		{name: "100000 levels, unterminated", body: `{"a":` + strings.Repeat(`[`, 100000),
			want: 400, wantBody: bad("request body nests deeper than 16 levels (at byte 20)")},

		// null is a wrong type, at every level.
		{name: "null for every top-level field",
			body: `{"query":null,"countryCode":null,"languageCode":null,"screenshots":null,"fields":null,"cache":null}`,
			want: 422, wantBody: invalid(map[string]string{"query": mustString, "countryCode": mustString,
				"languageCode": mustString, "screenshots": mustBool, "fields": mustObject, "cache": mustObject})},
		{name: "null for every nested field",
			body: `{"query":"x","cache":{"enabled":null,"ttl":null},"fields":{"sources":null,"citations":[null],"paragraphs":{"text":null,"citations":null}}}`,
			want: 422, wantBody: invalid(map[string]string{"cache.enabled": mustBool, "cache.ttl": "must be a number",
				"fields.sources": "must be an array of field names", "fields.citations[0]": mustString,
				"fields.paragraphs.text": mustBool, "fields.paragraphs.citations": "must be an array of field names"})},
		{name: "null for fields.paragraphs", body: `{"query":"x","fields":{"paragraphs":null}}`,
			want: 422, wantBody: invalid(map[string]string{"fields.paragraphs": mustObject})},

		// Numbers where strings belong.
		{name: "numbers for the strings", body: `{"query":1,"countryCode":43,"languageCode":7e1}`,
			want: 422, wantBody: invalid(map[string]string{"query": mustString, "countryCode": mustString, "languageCode": mustString})},
		{name: "a number for a field name", body: `{"query":"x","fields":{"sources":["url",1]}}`,
			want: 422, wantBody: invalid(map[string]string{"fields.sources[1]": mustString})},
		{name: "a boolean for the query", body: `{"query":true}`, want: 422, wantBody: invalid(map[string]string{"query": mustString})},

		// Length in characters, not bytes.
		{name: "500 two-byte characters", body: query(strings.Repeat("é", 500)), want: 503, wantBody: accepted},
		{name: "501 two-byte characters", body: query(strings.Repeat("é", 501)), want: 422, wantBody: invalid(map[string]string{"query": tooLong})},
		{name: "500 three-byte characters", body: query(strings.Repeat("€", 500)), want: 503, wantBody: accepted},
		{name: "501 three-byte characters", body: query(strings.Repeat("€", 501)), want: 422, wantBody: invalid(map[string]string{"query": tooLong})},
		{name: "500 four-byte characters", body: query(strings.Repeat("😀", 500)), want: 503, wantBody: accepted},
		{name: "501 four-byte characters", body: query(strings.Repeat("😀", 501)), want: 422, wantBody: invalid(map[string]string{"query": tooLong})},
		{name: "500 escaped surrogate pairs", body: query(strings.Repeat(`\ud83d\ude00`, 500)), want: 503, wantBody: accepted},
		{name: "501 escaped surrogate pairs", body: query(strings.Repeat(`\ud83d\ude00`, 501)), want: 422, wantBody: invalid(map[string]string{"query": tooLong})},
		{name: "501 characters of which 2 are folded spaces", body: query(strings.Repeat("ö", 498) + "  a"), want: 503, wantBody: accepted},

		// Control characters.
		{name: "NUL escaped", body: query(`a\u0000b`), want: 422, wantBody: invalid(map[string]string{"query": controls})},
		{name: "ESC escaped", body: query(`\u001b[31mred`), want: 422, wantBody: invalid(map[string]string{"query": controls})},
		{name: "DEL", body: query("a\u007fb"), want: 422, wantBody: invalid(map[string]string{"query": controls})},
		{name: "C1 control", body: query(`a\u009bb`), want: 422, wantBody: invalid(map[string]string{"query": controls})},
		{name: "escaped tab and newline fold to spaces", body: query(`a\tb\nc`), want: 503, wantBody: accepted},
		{name: "raw tab in a string", body: query("a\tb"),
			want: 400, wantBody: bad(`request body has an unescaped control character at byte 11 (in "query")`)},
		{name: "raw NUL in a string", body: query("a\x00b"),
			want: 400, wantBody: bad(`request body has an unescaped control character at byte 11 (in "query")`)},

		// cache.ttl.
		{name: "ttl 0", body: `{"query":"x","cache":{"ttl":0}}`, want: 422, wantBody: invalid(map[string]string{"cache.ttl": msgTTL})},
		{name: "ttl -1", body: `{"query":"x","cache":{"ttl":-1}}`, want: 422, wantBody: invalid(map[string]string{"cache.ttl": msgTTL})},
		{name: "ttl 1e9", body: `{"query":"x","cache":{"ttl":1e9}}`, want: 422, wantBody: invalid(map[string]string{"cache.ttl": msgTTL})},
		{name: "ttl 1.5", body: `{"query":"x","cache":{"ttl":1.5}}`, want: 422, wantBody: invalid(map[string]string{"cache.ttl": msgTTL})},
		{name: "ttl 1e2 is 100", body: `{"query":"x","cache":{"ttl":1e2}}`, want: 503, wantBody: accepted},

		// Duplicate keys, however spelt.
		{name: "duplicate query", body: `{"query":"a","query":"b"}`, want: 400, wantBody: bad(`request body has the key "query" twice`)},
		{name: "duplicate spelt with an escape", body: `{"query":"a","qu\u0065ry":"b"}`,
			want: 400, wantBody: bad(`request body has the key "query" twice`)},
		{name: "duplicate spelt all escaped", body: `{"\u0071\u0075\u0065\u0072\u0079":"a","query":"b"}`,
			want: 400, wantBody: bad(`request body has the key "query" twice`)},
		{name: "duplicate nested", body: `{"query":"a","cache":{"ttl":60,"ttl":0}}`,
			want: 400, wantBody: bad(`request body has the key "cache.ttl" twice`)},
		{name: "duplicate inside an array", body: `{"query":"a","x":[1,{"k":1,"k":2}]}`,
			want: 400, wantBody: bad(`request body has the key "x[1].k" twice`)},
		{name: "a long duplicate key is cut", body: `{"query":"a","` + strings.Repeat("ä", 200) + `":1,"` + strings.Repeat("ä", 200) + `":2}`,
			want: 400, wantBody: bad(`request body has the key "` + strings.Repeat("ä", 100) + `..." twice`)},
		{name: "same key in two objects is fine", body: `{"query":"a","fields":{"paragraphs":{"citations":["url"]},"citations":["url"]}}`,
			want: 503, wantBody: accepted},

		// Lone surrogates and invalid UTF-8.
		{name: "lone high surrogate", body: query(`\ud800`),
			want: 400, wantBody: bad(`request body has a lone UTF-16 surrogate \ud800 at byte 10 (in "query")`)},
		{name: "lone low surrogate", body: query(`ab\uDC00`),
			want: 400, wantBody: bad(`request body has a lone UTF-16 surrogate \uDC00 at byte 12 (in "query")`)},
		{name: "high surrogate then a letter", body: query(`\ud83d\u0041`),
			want: 400, wantBody: bad(`request body has a lone UTF-16 surrogate \ud83d at byte 10 (in "query")`)},
		{name: "lone surrogate in a key", body: `{"query":"a","\ud800":1}`,
			want: 400, wantBody: bad(`request body has a lone UTF-16 surrogate \ud800 at byte 14`)},
		{name: "invalid UTF-8 byte", body: query("a\xffb"), want: 400, wantBody: bad("request body is not valid UTF-8 (at byte 11)")},
		{name: "overlong UTF-8", body: query("\xc0\xaf"), want: 400, wantBody: bad("request body is not valid UTF-8 (at byte 10)")},
		{name: "UTF-8 encoded surrogate", body: query("\xed\xa0\x80"), want: 400, wantBody: bad("request body is not valid UTF-8 (at byte 10)")},
		{name: "truncated UTF-8", body: query("ab\xe2\x82"), want: 400, wantBody: bad("request body is not valid UTF-8 (at byte 12)")},
		{name: "invalid UTF-8 outside strings", body: "{\"query\":\"a\"}\xff", want: 400, wantBody: bad("request body is not valid UTF-8 (at byte 13)")},

		// Trailing data.
		{name: "a second object", body: `{"query":"a"}{"query":"b"}`,
			want: 400, wantBody: bad("request body has data after its JSON value (at byte 13)")},
		{name: "text after the object", body: `{"query":"a"}  x`,
			want: 400, wantBody: bad("request body has data after its JSON value (at byte 15)")},
		{name: "a comment after the object", body: "{\"query\":\"a\"}\n// done",
			want: 400, wantBody: bad("request body has data after its JSON value (at byte 14)")},
		{name: "whitespace after the object", body: "{\"query\":\"a\"}\r\n\t ", want: 503, wantBody: accepted},

		// Not an object.
		{name: "null body", body: `null`, want: 400, wantBody: bad(notObject)},
		{name: "array body", body: `[{"query":"a"}]`, want: 400, wantBody: bad(notObject)},
		{name: "whitespace only", body: " \n", want: 400, wantBody: bad(notObject)},
		{name: "truncated", body: `{"query":"a",`, want: 400, wantBody: bad("request body ends inside its JSON value (at byte 13)")},
		{name: "single quotes", body: `{'query':'a'}`, want: 400, wantBody: bad("request body is not valid JSON (at byte 1)")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := postOverview(t, ts, key, tt.body)
			checkJSON(t, res, tt.want, tt.wantBody)
		})
	}
}
