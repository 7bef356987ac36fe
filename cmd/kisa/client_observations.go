package main

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/kisa-dev/kisa/client"
)

// defineObservations is `kisa client observations`: one page of the
// account's requests, newest first, through the Go client.
func defineObservations(fs *flag.FlagSet) func([]string) (clientCall, error) {
	var q client.ObservationQuery
	fs.StringVar(&q.KeyID, "key", "", "only this API key's requests (its id)")
	fs.StringVar(&q.Status, "status", "", "only this status code (404) or class (5xx)")
	fs.StringVar(&q.Path, "path", "", "only this route template, e.g. /v1/integrations/:id")
	from := fs.String("from", "", "only requests at or after this time (RFC 3339)")
	to := fs.String("to", "", "only requests before this time (RFC 3339)")
	fs.IntVar(&q.Limit, "limit", 0, "observations per page, 1 to 100 (API default 10)")
	fs.StringVar(&q.Cursor, "cursor", "", "nextCursor of the page before")
	return func(args []string) (clientCall, error) {
		if len(args) > 0 {
			return clientCall{}, fmt.Errorf("unexpected argument %q", args[0])
		}
		for _, t := range []struct {
			name, v string
			to      *time.Time
		}{{"from", *from, &q.From}, {"to", *to, &q.To}} {
			if t.v == "" {
				continue
			}
			parsed, err := time.Parse(time.RFC3339Nano, t.v)
			if err != nil {
				return clientCall{}, fmt.Errorf("--%s must be a time such as 2026-11-26T12:00:00Z", t.name)
			}
			*t.to = parsed
		}
		return clientCall{run: func(ctx context.Context, c *client.Client) (any, error) {
			return c.ListObservations(ctx, q)
		}}, nil
	}
}

// defineUsage is `kisa client usage`: the account's use per day and key.
func defineUsage(fs *flag.FlagSet) func([]string) (clientCall, error) {
	var q client.UsageQuery
	fs.StringVar(&q.From, "from", "", "first day (YYYY-MM-DD, UTC; default 29 days before --to)")
	fs.StringVar(&q.To, "to", "", "last day (YYYY-MM-DD, UTC; default today)")
	fs.StringVar(&q.KeyID, "key", "", "only this API key's use (its id)")
	return func(args []string) (clientCall, error) {
		if len(args) > 0 {
			return clientCall{}, fmt.Errorf("unexpected argument %q", args[0])
		}
		return clientCall{run: func(ctx context.Context, c *client.Client) (any, error) {
			return c.Usage(ctx, q)
		}}, nil
	}
}
