package main

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kisa-dev/kisa/testenv"
)

// TestClientCommand runs `kisa client ...` against the API on the test
// database with the demo account's key.
func TestClientCommand(t *testing.T) {
	e := newCLIEnv(t)
	key := e.ok(t, "", "demo")["key"].(string)
	srv := httptest.NewServer(newAPI(e, "kisa"))
	t.Cleanup(srv.Close)
	env := testenv.Environ("KISA_API_KEY="+key, "KISA_URL="+srv.URL)
	_, apiBody := apiGet(t, newAPI(e, "kisa"), "/v1/knowledgebase", key)
	var want struct{ Data any }
	if err := json.Unmarshal([]byte(apiBody), &want); err != nil {
		t.Fatal(err)
	}

	t.Run("knowledgebase prints the data", func(t *testing.T) {
		stdout, stderr, err := cliRun(t, env, "", "client", "knowledgebase")
		if err != nil {
			t.Fatalf("%v (stderr %s)", err, stderr)
		}
		var got any
		if err := json.Unmarshal([]byte(stdout), &got); err != nil {
			t.Fatalf("stdout is not JSON: %v\n%s", err, stdout)
		}
		if diff := cmp.Diff(want.Data, got); diff != "" {
			t.Errorf("printed data (-API +printed):\n%s", diff)
		}
	})

	tests := []struct {
		name       string
		args       []string
		wantErr    string
		wantStderr string
	}{
		{name: "validation, flags after the query", args: []string{"overview", " ", "--country", "xx", "--ttl", "90000", "--url", srv.URL},
			wantErr:    "kisa: 422 validation failed (cache.ttl: must be a whole number of seconds from 1 to 86400; countryCode: must be an ISO 3166-1 alpha-2 country code; query: must not be empty) [request ",
			wantStderr: `"errors": {`},
		{name: "device and location checked", args: []string{"overview", "q", "--device", "tablet", "--location", "Munich,Bavaria,Germany", "--country", "at"},
			wantErr:    `kisa: 422 validation failed (device: must be one of: desktop, mobile; location: names a place in "Germany", not in Austria (countryCode "at"); its last part must be "Austria") [request `,
			wantStderr: `"errors": {`},
		{name: "coordinates checked", args: []string{"overview", "q", "--country", "jp", "--location", "48.137, 11.575"},
			wantErr:    `kisa: 422 validation failed (location: lies outside Japan (countryCode "jp")) [request `,
			wantStderr: `"errors": {`},
		{name: "unknown integration", args: []string{"integration", "0b9b6f4e-0000-4000-8000-000000000000"},
			wantErr: "kisa: 404 ", wantStderr: `"status": 404`},
		{name: "no key", args: []string{"knowledgebase", "--url", srv.URL}, wantErr: "client: KISA_API_KEY: must be set to an API key"},
		{name: "bad fields flag", args: []string{"overview", "q", "--fields", "{"}, wantErr: "client overview: --fields: unexpected end of JSON input"},
		{name: "AI Mode follow-ups checked", args: []string{"ai-mode", "q", "--follow-up", "a", "--follow-up", "b", "--follow-up", "c", "--follow-up", "d"},
			wantErr: "kisa: 422 validation failed (followUps: must hold 1 to 3 prompts, got 4) [request ", wantStderr: `"errors": {`},
		{name: "ChatGPT's prompt checked", args: []string{"chatgpt", strings.Repeat("q", 4001), "--no-web-search", "--follow-up", " "},
			wantErr: "kisa: 422 validation failed (followUps[0]: must not be empty; query: must be at most 4000 characters, got 4001) [request ", wantStderr: `"errors": {`},
		{name: "Copilot's follow-ups checked", args: []string{"copilot", "q", "--follow-up", "a", "--follow-up", "b", "--follow-up", "c", "--follow-up", "d"},
			wantErr: "kisa: 422 validation failed (followUps: must hold 1 to 3 prompts, got 4) [request ", wantStderr: `"errors": {`},
		{name: "web search fields checked", args: []string{"web-search", "q", "--max-results", "11", "--fields", "url, snippet"},
			wantErr:    `kisa: 422 validation failed (fields[1]: unknown field "snippet"; allowed: position, title, url, description; maxResults: must be a whole number from 1 to 10) [request `,
			wantStderr: `"errors": {`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			getenv := env
			if tt.name == "no key" {
				getenv = testenv.Environ()
			}
			stdout, stderr, err := cliRun(t, getenv, "", append([]string{"client"}, tt.args...)...)
			if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) {
				t.Errorf("error = %v, want it to start with %q", err, tt.wantErr)
			}
			if stdout != "" {
				t.Errorf("stdout = %q, want nothing", stdout)
			}
			if !strings.Contains(stderr, tt.wantStderr) {
				t.Errorf("stderr = %q, want it to contain %q", stderr, tt.wantStderr)
			}
		})
	}
}
