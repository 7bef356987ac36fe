package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/kisa-dev/kisa/client"
)

// monitorsRoot is the root of the monitor endpoints.
const monitorsRoot = "/v1/monitors"

// monitorCommands are `kisa client monitors ...`.
func monitorCommands() []clientCommand {
	return []clientCommand{
		{"monitors list", "", "list the account's monitors, newest first", defineMonitorsList},
		{"monitors get", "<id>", "show one monitor with its targets", withID(monitorsRoot + "/")},
		{"monitors create", "", "create a monitor from a JSON definition (--file; --device, --location for its targets that name none)", defineMonitorCreate},
		{"monitors update", "<id>", "change a monitor: --file with the fields to replace, or --pause / --resume", defineMonitorUpdate},
		{"monitors delete", "<id>", "delete a monitor and its history", defineMonitorCall(http.MethodDelete, "")},
		{"monitors run", "<id>", "run a monitor now", defineMonitorCall(http.MethodPost, "/run")},
		{"monitors runs", "<id>", "list a monitor's runs with their counts, newest first", defineMonitorCall(http.MethodGet, "/runs")},
		{"monitors changes", "<id>", "list a monitor's change events (--since)", defineMonitorChanges},
		{"monitors history", "<id> <target-id>", "show a target's readings (--from, --to, --csv)", defineMonitorHistory},
		{"monitors visibility", "<id>", "show citation visibility (--from, --to, --group-by day|country)", defineMonitorVisibility},
		{"monitors brands", "<id>", "show brand visibility (--from, --to, --group-by surface,country,device,language,day, --csv)", defineMonitorBrands},
		{"monitors sources", "<id>", "show the domains the answers cite most (--from, --to, --limit, --csv)", defineMonitorSources},
	}
}

// rawOutput is printed as it is (a CSV), not as JSON.
type rawOutput []byte

func defineMonitorsList(fs *flag.FlagSet) func([]string) (clientCall, error) {
	limit := fs.Int("limit", 0, "monitors per page, 1 to 100 (API default 20)")
	cursor := fs.String("cursor", "", "nextCursor of the page before")
	return func(args []string) (clientCall, error) {
		if len(args) > 0 {
			return clientCall{}, fmt.Errorf("unexpected argument %q", args[0])
		}
		return clientCall{run: func(ctx context.Context, c *client.Client) (any, error) {
			return c.ListMonitors(ctx, *limit, *cursor)
		}}, nil
	}
}

func defineMonitorCreate(fs *flag.FlagSet) func([]string) (clientCall, error) {
	file := fs.String("file", "", `JSON definition: {"name", "schedule", "targets", "watch", "webhook", "paused"}`)
	place := definePlaceFlags(fs)
	return func(args []string) (clientCall, error) {
		if len(args) > 0 || *file == "" {
			return clientCall{}, errors.New("give the definition with --file and no arguments")
		}
		b, err := place.read(*file)
		if err != nil {
			return clientCall{}, err
		}
		return clientCall{method: http.MethodPost, path: monitorsRoot, body: b}, nil
	}
}

// placeFlags are --device and --location of the commands that send
// targets: they set the device and location of every target of the file
// that names none.
type placeFlags struct{ device, location *string }

func definePlaceFlags(fs *flag.FlagSet) placeFlags {
	return placeFlags{
		device: fs.String("device", "", "desktop or mobile: of every target of --file that names no device (API default desktop)"),
		location: fs.String("location", "",
			`place inside the country of every target of --file that names none: a canonical name ("Munich,Bavaria,Germany") or "latitude,longitude"`),
	}
}

// read reads the JSON object of file and, when the flags are given, sets
// them on its targets that lack them; the API checks the result.
func (p placeFlags) read(file string) (json.RawMessage, error) {
	b, err := os.ReadFile(file)
	if err != nil || (*p.device == "" && *p.location == "") {
		return b, err
	}
	var def map[string]json.RawMessage
	var targets []map[string]json.RawMessage
	if err := json.Unmarshal(b, &def); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if err := json.Unmarshal(def["targets"], &targets); err != nil || targets == nil {
		return nil, fmt.Errorf("%s: --device and --location need a list of targets", file)
	}
	for _, t := range targets {
		if _, ok := t["device"]; !ok && *p.device != "" {
			t["device"], _ = json.Marshal(*p.device)
		}
		if _, ok := t["location"]; !ok && *p.location != "" {
			t["location"], _ = json.Marshal(parseLocationFlag(*p.location))
		}
	}
	if def["targets"], err = json.Marshal(targets); err != nil {
		return nil, err
	}
	return json.Marshal(def)
}

func defineMonitorUpdate(fs *flag.FlagSet) func([]string) (clientCall, error) {
	file := fs.String("file", "", "JSON object of the fields to replace")
	place := definePlaceFlags(fs)
	pause := fs.Bool("pause", false, "pause the monitor")
	resume := fs.Bool("resume", false, "resume the monitor")
	return func(args []string) (clientCall, error) {
		if len(args) != 1 {
			return clientCall{}, errors.New("give exactly one id")
		}
		var body json.RawMessage
		switch {
		case *file != "" && !*pause && !*resume:
			b, err := place.read(*file)
			if err != nil {
				return clientCall{}, err
			}
			body = b
		case *file == "" && *pause != *resume:
			body = json.RawMessage(fmt.Sprintf(`{"paused":%t}`, *pause))
		default:
			return clientCall{}, errors.New("give one of --file, --pause, --resume")
		}
		return clientCall{method: http.MethodPatch, path: monitorsRoot + "/" + args[0], body: body}, nil
	}
}

// defineMonitorCall is a call with the monitor's id and no flags.
func defineMonitorCall(method, suffix string) func(*flag.FlagSet) func([]string) (clientCall, error) {
	return func(*flag.FlagSet) func([]string) (clientCall, error) {
		return func(args []string) (clientCall, error) {
			if len(args) != 1 {
				return clientCall{}, errors.New("give exactly one id")
			}
			if method == http.MethodDelete {
				return clientCall{run: func(ctx context.Context, c *client.Client) (any, error) {
					return map[string]string{"deleted": args[0]}, c.DeleteMonitor(ctx, args[0])
				}}, nil
			}
			return clientCall{method: method, path: monitorsRoot + "/" + args[0] + suffix}, nil
		}
	}
}

func defineMonitorChanges(fs *flag.FlagSet) func([]string) (clientCall, error) {
	since := fs.String("since", "", "only events at or after this RFC 3339 time")
	limit := fs.Int("limit", 0, "events per page, 1 to 100 (API default 20)")
	cursor := fs.String("cursor", "", "nextCursor of the page before")
	return func(args []string) (clientCall, error) {
		if len(args) != 1 {
			return clientCall{}, errors.New("give exactly one id")
		}
		t, err := optionalTime(*since, "--since")
		if err != nil {
			return clientCall{}, err
		}
		return clientCall{run: func(ctx context.Context, c *client.Client) (any, error) {
			return c.MonitorChanges(ctx, args[0], t, *limit, *cursor)
		}}, nil
	}
}

func defineMonitorHistory(fs *flag.FlagSet) func([]string) (clientCall, error) {
	from := fs.String("from", "", "start, RFC 3339 (API default 30 days before --to)")
	to := fs.String("to", "", "end, RFC 3339 (API default now)")
	csv := fs.Bool("csv", false, "print CSV: one row per reading per source")
	return func(args []string) (clientCall, error) {
		if len(args) != 2 {
			return clientCall{}, errors.New("give the monitor's id and the target's id")
		}
		f, t, err := timeRange(*from, *to)
		if err != nil {
			return clientCall{}, err
		}
		return clientCall{run: func(ctx context.Context, c *client.Client) (any, error) {
			b, err := c.TargetHistory(ctx, args[0], args[1], f, t, *csv)
			if *csv {
				return rawOutput(b), err
			}
			return json.RawMessage(b), err
		}}, nil
	}
}

func defineMonitorVisibility(fs *flag.FlagSet) func([]string) (clientCall, error) {
	from := fs.String("from", "", "start, RFC 3339 (API default 30 days before --to)")
	to := fs.String("to", "", "end, RFC 3339 (API default now)")
	group := fs.String("group-by", "day", "day or country")
	return func(args []string) (clientCall, error) {
		if len(args) != 1 {
			return clientCall{}, errors.New("give exactly one id")
		}
		f, t, err := timeRange(*from, *to)
		if err != nil {
			return clientCall{}, err
		}
		return clientCall{run: func(ctx context.Context, c *client.Client) (any, error) {
			return c.MonitorVisibility(ctx, args[0], f, t, *group)
		}}, nil
	}
}

func defineMonitorBrands(fs *flag.FlagSet) func([]string) (clientCall, error) {
	from := fs.String("from", "", "start, RFC 3339 (API default 30 days before --to)")
	to := fs.String("to", "", "end, RFC 3339 (API default now)")
	group := fs.String("group-by", "", "comma-separated: surface, country, device, language, day (none: one group)")
	csv := fs.Bool("csv", false, "print CSV: one row per group per brand")
	return exportCall(from, to, csv, func(ctx context.Context, c *client.Client, id string, f, t time.Time) ([]byte, error) {
		var groups []string
		if *group != "" {
			groups = strings.Split(*group, ",")
		}
		return c.MonitorBrands(ctx, id, f, t, groups, *csv)
	})
}

func defineMonitorSources(fs *flag.FlagSet) func([]string) (clientCall, error) {
	from := fs.String("from", "", "start, RFC 3339 (API default 30 days before --to)")
	to := fs.String("to", "", "end, RFC 3339 (API default now)")
	limit := fs.Int("limit", 0, "domains, 1 to 500 (API default 50)")
	csv := fs.Bool("csv", false, "print CSV: a row per domain and per domain and surface")
	return exportCall(from, to, csv, func(ctx context.Context, c *client.Client, id string, f, t time.Time) ([]byte, error) {
		return c.MonitorSources(ctx, id, f, t, *limit, *csv)
	})
}

// exportCall is a command of one monitor id and --from/--to whose answer
// is JSON, or CSV printed as it is with --csv.
func exportCall(from, to *string, csv *bool, get func(context.Context, *client.Client, string, time.Time, time.Time) ([]byte, error)) func([]string) (clientCall, error) {
	return func(args []string) (clientCall, error) {
		if len(args) != 1 {
			return clientCall{}, errors.New("give exactly one id")
		}
		f, t, err := timeRange(*from, *to)
		if err != nil {
			return clientCall{}, err
		}
		return clientCall{run: func(ctx context.Context, c *client.Client) (any, error) {
			b, err := get(ctx, c, args[0], f, t)
			if *csv {
				return rawOutput(b), err
			}
			return json.RawMessage(b), err
		}}, nil
	}
}

// timeRange parses the --from and --to flags (each optional).
func timeRange(from, to string) (f, t time.Time, err error) {
	if f, err = optionalTime(from, "--from"); err != nil {
		return f, t, err
	}
	t, err = optionalTime(to, "--to")
	return f, t, err
}

// optionalTime parses an RFC 3339 flag value; "" is the zero time.
func optionalTime(s, flagName string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return t, fmt.Errorf("%s: %q is not an RFC 3339 time (2026-11-26T06:00:00Z)", flagName, s)
	}
	return t, nil
}
