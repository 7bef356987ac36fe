package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/overview"
	"github.com/kisa-dev/kisa/testenv"
)

// captured is the folder of the real saved pages.
const captured = "../../serpfixture/captured"

// readPage runs kisa read with args (and stdin) and returns its output
// decoded, or its error.
func readPage(t *testing.T, getenv func(string) string, stdin io.Reader, args ...string) (map[string]any, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	if getenv == nil {
		getenv = testenv.Environ()
	}
	err := run(context.Background(), append([]string{"read"}, args...), getenv, stdin, &out, &errOut)
	if err != nil {
		return nil, err
	}
	var got struct {
		Results map[string]any `json:"results"`
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("kisa read printed %q: %v", out.String(), err)
	}
	return got.Results, nil
}

// recode decodes v, decoded JSON, into out.
func recode(t *testing.T, v, out any) {
	t.Helper()
	b, _ := json.Marshal(v)
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatal(err)
	}
}

// goldenOf returns the golden reading of a real page of worker/serp.
func goldenOf[T any](t *testing.T, name string) T {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("../../worker/serp/testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestReadSavedPages(t *testing.T) {
	t.Run("web search: the organic results of its golden reading, in order", func(t *testing.T) {
		got, err := readPage(t, nil, nil, "--surface", "web-search", filepath.Join(captured, "web-google-2023.html"))
		if err != nil {
			t.Fatal(err)
		}
		want := goldenOf[kisa.WebResults](t, "web-google-2023.golden.json")
		var organic []kisa.OrganicResult
		recode(t, got["organic"], &organic)
		if len(want.Organic) == 0 || !cmp.Equal(organic, want.Organic) {
			t.Errorf("organic differs from the golden reading:\n%s", cmp.Diff(want.Organic, organic))
		}
	})
	t.Run("overview of 2026: the answer and its ten sources", func(t *testing.T) {
		got, err := readPage(t, nil, nil, "--surface", "ai-overview", filepath.Join(captured, "aio-why-are-frogs-green.html"))
		if err != nil {
			t.Fatal(err)
		}
		text, _ := got["text"].(string)
		sources, _ := got["sources"].([]any)
		if got["hasOverview"] != true || !strings.HasPrefix(text, "Frogs are green primarily for camouflage") || len(sources) != 10 {
			t.Errorf("hasOverview %v, text %.60q, %d sources; want true, the answer, 10", got["hasOverview"], text, len(sources))
		}
	})
	t.Run("AI Mode: every turn of the conversation", func(t *testing.T) {
		got, err := readPage(t, nil, nil, "--surface", "ai-mode", filepath.Join(captured, "aimode-chrome-beta-download-location.html"))
		if err != nil {
			t.Fatal(err)
		}
		want := goldenOf[kisa.Answer](t, "aimode-chrome-beta-download-location.golden.json")
		turns, _ := got["turns"].([]any)
		if got["hasAnswer"] != true || got["text"] != want.Text || len(turns) != len(want.Turns) || len(turns) == 0 {
			t.Errorf("hasAnswer %v, %d turns, text %.60q; want true, %d turns, %.60q", got["hasAnswer"], len(turns), got["text"], len(want.Turns), want.Text)
		}
	})
	t.Run("the AI assistants' real pages: answers, turns, cited sources", func(t *testing.T) {
		dir := "../../worker/assistants/testdata"
		got, err := readPage(t, nil, nil, "--surface", "perplexity", filepath.Join(dir, "perplexity-thread-what-day-is-it-2024-12.html"))
		if err != nil {
			t.Fatal(err)
		}
		var a kisa.Answer
		recode(t, got, &a)
		if !a.HasAnswer || !strings.HasPrefix(a.Text, "Today is Thursday, December 19, 2024.") || len(a.Sources) != 4 ||
			len(a.Turns) != 1 || !strings.HasPrefix(a.Turns[0].Text, "There are 12 days left in 2024.") || len(a.Turns[0].Citations) != 3 {
			t.Errorf("perplexity: %+v", a)
		}
		if c := a.Sources[2].Cited; c == nil || !*c || a.Sources[2].URL != "https://www.epochconverter.com/daynumbers" || a.Sources[2].Position != 3 {
			t.Errorf("perplexity's third source = %+v, want epochconverter's day numbers at 3, cited", a.Sources[2])
		}
		got, err = readPage(t, nil, nil, "--surface", "chatgpt", filepath.Join(dir, "chatgpt-share-air-purifier-2026-06.html"))
		if err != nil {
			t.Fatal(err)
		}
		var b kisa.Answer
		recode(t, got, &b)
		if !b.HasAnswer || !strings.HasPrefix(b.Text, "For a bedroom air purifier, the most important thing") || len(b.Citations) != 4 ||
			!strings.Contains(b.Markdown, "| Bedroom-focused | Yes | Yes | Yes |") {
			t.Errorf("chatgpt: hasAnswer %v, %d citations, text %.60q", b.HasAnswer, len(b.Citations), b.Text)
		}
	})
	t.Run("standard input, gzip as the bucket stores it: the same reading", func(t *testing.T) {
		page, err := os.ReadFile(filepath.Join(captured, "web-hotels-2023.html"))
		if err != nil {
			t.Fatal(err)
		}
		var gz bytes.Buffer
		zw := gzip.NewWriter(&gz)
		zw.Write(page)
		zw.Close()
		fromFile, err := readPage(t, nil, nil, "--surface", "web-search", filepath.Join(captured, "web-hotels-2023.html"))
		if err != nil {
			t.Fatal(err)
		}
		fromStdin, err := readPage(t, nil, &gz, "--surface", "web-search", "-")
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(fromFile, fromStdin); diff != "" || len(fromFile["organic"].([]any)) == 0 {
			t.Errorf("stdin (gzip) differs from the file (-file +stdin):\n%s", diff)
		}
	})
	t.Run("a page no reading knows is an error, never an empty answer", func(t *testing.T) {
		_, err := readPage(t, nil, strings.NewReader("<html><body><p>Hello</p></body></html>"), "--surface", "web-search", "-")
		if err == nil || !strings.Contains(err.Error(), "not recognised as web-search") {
			t.Errorf("err = %v, want page not recognised", err)
		}
	})
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no page", []string{"--surface", "ai-mode"}, "give one of FILE, --job ID or --object KEY"},
		{"two pages", []string{"--surface", "ai-mode", "--job", "x", "a.html"}, "give one of FILE"},
		{"unknown surface", []string{"--surface", "images", "a.html"}, "--surface must be one of: ai-overview"},
		{"job with surface", []string{"--surface", "ai-mode", "--job", "x"}, "takes its surface from the job"},
		{"bad job id", []string{"--job", "x"}, `"x" is not a job id`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := readPage(t, nil, nil, tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

// TestReadStoredJob re-reads the page a done job's visit stored in the
// bucket: today's reading of it is the job's result.
func TestReadStoredJob(t *testing.T) {
	s := startStack(t, stackOptions{waitTimeout: "60s"})
	for _, tc := range []struct{ surface, body string }{
		{"web-search", `{"query":"best hiking boots","countryCode":"us","languageCode":"en","async":true}`},
		{"ai-overview", `{"query":"why is the sky blue","countryCode":"us","languageCode":"en","screenshots":false,"async":true}`},
	} {
		t.Run(tc.surface, func(t *testing.T) {
			status, _, raw := call(t, http.MethodPost, s.base+"/v1/networks/browser/"+tc.surface, s.key, tc.body)
			if status != http.StatusAccepted {
				t.Fatalf("submit: %d %s", status, raw)
			}
			id := dataOf[overview.Job](t, raw).ID
			done := pollJob(t, s.base, s.key, id, func(j overview.Job) bool { return j.Status == "done" || j.Status == "failed" })
			if done.Result == nil {
				t.Fatalf("job ended %s: %s", done.Status, done.Error)
			}
			got, err := readPage(t, s.env, nil, "--job", id)
			if err != nil {
				t.Fatal(err)
			}
			want := withoutShots(t, testenv.Object(t, done.Result.Results))
			delete(want, "rawHtml")
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("re-read differs from the job's result (-job +read):\n%s", diff)
			}
		})
	}
	t.Run("an unknown job", func(t *testing.T) {
		if _, err := readPage(t, s.env, nil, "--job", "00000000-0000-4000-8000-000000000000"); err == nil || !strings.Contains(err.Error(), "no job") {
			t.Errorf("err = %v, want no job", err)
		}
	})
}
