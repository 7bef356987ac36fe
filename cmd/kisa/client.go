package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/kisa-dev/kisa/client"
	"github.com/kisa-dev/kisa/config"
	"github.com/kisa-dev/kisa/geo"
)

// clientCommand is one `kisa client <name>`: define declares its flags and
// returns the call to make once they (and args, the positional
// arguments) are parsed.
type clientCommand struct {
	name    string
	usage   string // positional arguments, for the help
	summary string
	define  func(fs *flag.FlagSet) func(args []string) (clientCall, error)
}

// clientCall is one API request: method, path and JSON body (nil: none),
// or run, for a command that makes several.
type clientCall struct {
	method, path string
	body         any
	run          func(context.Context, *client.Client) (any, error)
}

// Paths of the async overview resources.
const (
	overviewPath    = "/v1/networks/browser/ai-overview"
	overviewJobs    = overviewPath + "/jobs"
	overviewBatches = overviewPath + "/batches"
)

func clientCommands() []clientCommand {
	return append([]clientCommand{
		{"knowledgebase", "", "list the account's knowledge-base clusters", noFlags(http.MethodGet, "/v1/knowledgebase")},
		{"integrations", "", "list the account's integrations", noFlags(http.MethodGet, "/v1/integrations")},
		{"integration", "<id>", "show one integration", withID("/v1/integrations/")},
		{"secret", "<id>", "show one secret (its value masked)", withID("/v1/secrets/")},
		{"overview", "<query>", "read the AI overview of a results page and wait for it", defineOverview},
		{"complete", "<message>", "run a chat completion through the configured upstream", defineComplete},
		{"jobs list", "", "list the account's async overview jobs, newest first", defineJobsList},
		{"jobs get", "<id>", "show one async overview job", withID(overviewJobs + "/")},
		{"jobs wait", "<id>", "poll an async overview job until it has ended, then show it", defineJobsWait},
		{"batch get", "<id>", "show one batch of async overview jobs", withID(overviewBatches + "/")},
		{"observations", "", "list the account's requests with their traces, newest first", defineObservations},
		{"usage", "", "show the account's use per day and key (billable: billableResults)", defineUsage},
	}, append(surfaceCommands(), monitorCommands()...)...)
}

// runClient dispatches `kisa client ...`: each command calls the API at
// --url (default $KISA_URL) with $KISA_API_KEY and prints the answer's
// data as JSON on stdout; an error answer is printed on stderr and the
// command exits non-zero.
func runClient(ctx context.Context, e env, args []string) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		clientUsage(e.stdout)
		if len(args) == 0 {
			return errors.New("client: no command given")
		}
		return nil
	}
	for _, c := range clientCommands() {
		words := strings.Fields(c.name)
		if len(args) < len(words) || strings.Join(args[:len(words)], " ") != c.name {
			continue
		}
		cfg, err := config.Load(e.getenv)
		if err != nil {
			return err
		}
		fs := flags(e, "client "+c.name+" "+c.usage, c.summary)
		base := fs.String("url", cfg.ClientURL, "base URL of the API (default $KISA_URL)")
		build := c.define(fs)
		pos, err := parseInterspersed(fs, args[len(words):])
		if err != nil {
			return err
		}
		call, err := build(pos)
		if err != nil {
			return fmt.Errorf("client %s: %w", c.name, err)
		}
		if cfg.ClientKey == "" {
			return errors.New("client: KISA_API_KEY: must be set to an API key")
		}
		api := client.New(*base, cfg.ClientKey)
		if call.run != nil {
			v, err := call.run(ctx, api)
			return printData(e, v, err)
		}
		return callAndPrint(ctx, e, api, call)
	}
	clientUsage(e.stderr)
	return fmt.Errorf("client: unknown command %q", args[0])
}

// printData prints what a multi-request command returned, or its error.
func printData(e env, v any, err error) error {
	if err != nil {
		var apiErr *client.Error
		if errors.As(err, &apiErr) {
			b, _ := json.MarshalIndent(apiErr, "", "  ")
			fmt.Fprintf(e.stderr, "%s\n", b)
		}
		return err
	}
	if raw, ok := v.(rawOutput); ok {
		_, err := e.stdout.Write(raw)
		return err
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(e.stdout, "%s\n", b)
	return err
}

// callAndPrint makes the call and prints the answer's data, indented.
func callAndPrint(ctx context.Context, e env, c *client.Client, call clientCall) error {
	var data json.RawMessage
	_, err := c.Do(ctx, call.method, call.path, call.body, &data)
	if err != nil {
		var apiErr *client.Error
		if errors.As(err, &apiErr) {
			b, _ := json.MarshalIndent(apiErr, "", "  ")
			fmt.Fprintf(e.stderr, "%s\n", b)
		}
		return err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, data, "", "  "); err != nil {
		return err
	}
	_, err = fmt.Fprintln(e.stdout, out.String())
	return err
}

// parseInterspersed parses flags that may come before or after the
// positional arguments (kisa client overview "query" --country at) and
// returns the positional ones.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

func noFlags(method, path string) func(*flag.FlagSet) func([]string) (clientCall, error) {
	return func(*flag.FlagSet) func([]string) (clientCall, error) {
		return func(args []string) (clientCall, error) {
			if len(args) > 0 {
				return clientCall{}, fmt.Errorf("unexpected argument %q", args[0])
			}
			return clientCall{method: method, path: path}, nil
		}
	}
}

func withID(prefix string) func(*flag.FlagSet) func([]string) (clientCall, error) {
	return func(*flag.FlagSet) func([]string) (clientCall, error) {
		return func(args []string) (clientCall, error) {
			if len(args) != 1 {
				return clientCall{}, errors.New("give exactly one id")
			}
			return clientCall{method: http.MethodGet, path: prefix + args[0]}, nil
		}
	}
}

func defineOverview(fs *flag.FlagSet) func([]string) (clientCall, error) {
	country := fs.String("country", "", "ISO 3166-1 alpha-2 country code (API default at)")
	lang := fs.String("language", "", "ISO 639-1 language code (API default de)")
	device := fs.String("device", "", "desktop or mobile (API default desktop)")
	location := fs.String("location", "", `place inside the country: a canonical name ("Munich,Bavaria,Germany") or "latitude,longitude"`)
	noShots := fs.Bool("no-screenshots", false, "ask for no screenshots")
	rawHTML := fs.Bool("raw-html", false, "also answer a URL of the page's HTML (results.rawHtml)")
	noCache := fs.Bool("no-cache", false, "neither read nor write the result cache")
	ttl := fs.Int("ttl", 0, "cache lifetime in seconds, 1 to 86400 (API default 120)")
	fields := fs.String("fields", "", `field selection as JSON, e.g. '{"sources":["url","title"]}'`)
	async := fs.Bool("async", false, "submit as an async job and print it at once (202)")
	webhook := fs.String("webhook", "", "with --async: URL to call, signed, when the job ends")
	return func(args []string) (clientCall, error) {
		if len(args) != 1 {
			return clientCall{}, errors.New("give the query as one argument (quote it)")
		}
		req := client.OverviewRequest{Query: args[0], CountryCode: *country, LanguageCode: *lang, Device: *device,
			Location: parseLocationFlag(*location), RawHTML: *rawHTML}
		if *noShots {
			req.Screenshots = new(bool)
		}
		if *noCache || *ttl != 0 {
			req.Cache = &client.CacheSettings{TTL: *ttl}
			if *noCache {
				req.Cache.Enabled = new(bool)
			}
		}
		if *fields != "" {
			req.Fields = &client.OverviewFields{}
			if err := json.Unmarshal([]byte(*fields), req.Fields); err != nil {
				return clientCall{}, fmt.Errorf("--fields: %w", err)
			}
		}
		if *async || *webhook != "" {
			body := map[string]any{"async": true}
			b, _ := json.Marshal(req)
			_ = json.Unmarshal(b, &body)
			if *webhook != "" {
				body["webhook"] = map[string]string{"url": *webhook}
			}
			return clientCall{method: http.MethodPost, path: overviewPath, body: body}, nil
		}
		return clientCall{method: http.MethodPost, path: overviewPath, body: req}, nil
	}
}

// parseLocationFlag reads --location: two numbers separated by a comma
// are coordinates, anything else a place name (which the API checks); ""
// is no location.
func parseLocationFlag(s string) *geo.Location {
	if s == "" {
		return nil
	}
	if lat, lng, ok := strings.Cut(s, ","); ok && !strings.Contains(lng, ",") {
		la, err1 := strconv.ParseFloat(strings.TrimSpace(lat), 64)
		lo, err2 := strconv.ParseFloat(strings.TrimSpace(lng), 64)
		if err1 == nil && err2 == nil {
			return &geo.Location{Point: &geo.Point{Latitude: la, Longitude: lo}}
		}
	}
	return &geo.Location{Name: s}
}

func defineComplete(fs *flag.FlagSet) func([]string) (clientCall, error) {
	model := fs.String("model", "", "model name the upstream knows (required)")
	system := fs.String("system", "", "a system message to put first")
	return func(args []string) (clientCall, error) {
		if len(args) != 1 || *model == "" {
			return clientCall{}, errors.New("give --model and the message as one argument")
		}
		req := client.CompletionRequest{Model: *model}
		if *system != "" {
			req.Messages = append(req.Messages, client.Message{Role: "system", Content: *system})
		}
		req.Messages = append(req.Messages, client.Message{Role: "user", Content: args[0]})
		return clientCall{method: http.MethodPost, path: "/v1/completions", body: req}, nil
	}
}

func defineJobsList(fs *flag.FlagSet) func([]string) (clientCall, error) {
	status := fs.String("status", "", "only jobs in this status: queued, running, done or failed")
	limit := fs.Int("limit", 0, "jobs per page, 1 to 100 (API default 20)")
	cursor := fs.String("cursor", "", "nextCursor of the page before")
	return func(args []string) (clientCall, error) {
		if len(args) > 0 {
			return clientCall{}, fmt.Errorf("unexpected argument %q", args[0])
		}
		q := url.Values{}
		for k, v := range map[string]string{"status": *status, "cursor": *cursor} {
			if v != "" {
				q.Set(k, v)
			}
		}
		if *limit != 0 {
			q.Set("limit", strconv.Itoa(*limit))
		}
		path := overviewJobs
		if len(q) > 0 {
			path += "?" + q.Encode()
		}
		return clientCall{method: http.MethodGet, path: path}, nil
	}
}

func defineJobsWait(fs *flag.FlagSet) func([]string) (clientCall, error) {
	every := fs.Duration("every", 2*time.Second, "how often to poll")
	return func(args []string) (clientCall, error) {
		if len(args) != 1 {
			return clientCall{}, errors.New("give exactly one id")
		}
		return clientCall{run: func(ctx context.Context, c *client.Client) (any, error) {
			return c.WaitJob(ctx, args[0], *every)
		}}, nil
	}
}

func clientUsage(w io.Writer) {
	fmt.Fprintln(w, "Usage: kisa client <command> [arguments] [flags]\n\nCalls the API at $KISA_URL (or --url) with $KISA_API_KEY and prints the answer's data as JSON.\n\nCommands:")
	for _, c := range clientCommands() {
		fmt.Fprintf(w, "  %-24s %s\n", strings.TrimSpace(c.name+" "+c.usage), c.summary)
	}
	fmt.Fprintln(w, "\nRun 'kisa client <command> --help' for its flags.")
}
