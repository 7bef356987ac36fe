package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/kisa-dev/kisa/storage"
)

// monitorTabs is the worker of the monitor figure: one worker of 4 tabs,
// of which a run holds at most half (KISA_MONITOR_CONCURRENCY's default).
const monitorTabs = 4

// monitor: what a daily monitor of s.n.Targets targets costs (issue 24):
// the visits, PostgreSQL rows and bytes per reading, how long a run takes
// on one worker of 4 tabs, and the latency of interactive misses and
// cache hits while the run is in progress against the same probes
// without a run. The rows and bytes are the run's: each table's growth
// during the run, less its growth during the probes without a run (the
// probes are the same, so what remains is what the readings wrote).
func (s *suite) monitor() error {
	if err := s.ensureWorker(monitorTabs); err != nil {
		return err
	}
	if err := s.deleteMonitors(); err != nil {
		return err
	}
	db, err := storage.Open(s.ctx, envValue(s.env, "DATABASE_URL"))
	if err != nil {
		return err
	}
	defer db.Close()
	hit := overviewBody("bench monitor cached "+s.res.Time, true)
	if _, err := s.overview(hit); err != nil {
		return fmt.Errorf("fill the cache: %w", err)
	}

	before, err := tableSizes(s.ctx, db)
	if err != nil {
		return err
	}
	quiet := s.probe("without", hit)
	afterQuiet, err := tableSizes(s.ctx, db)
	if err != nil {
		return err
	}

	id, queries, err := s.createMonitor()
	if err != nil {
		return err
	}
	defer s.deleteMonitor(id)
	startRun, err := tableSizes(s.ctx, db)
	if err != nil {
		return err
	}
	if err := s.post("/v1/monitors/"+id+"/run", "", http.StatusAccepted, nil); err != nil {
		return err
	}
	busy := s.probe("during", hit)
	runningAfterProbes := false
	if r, err := s.lastRun(id); err == nil {
		runningAfterProbes = r.Status == "running"
	}
	run, err := s.waitRun(id)
	if err != nil {
		return err
	}
	endRun, err := tableSizes(s.ctx, db)
	if err != nil {
		return err
	}
	visits := 0
	for _, q := range queries {
		n, err := s.fixtureVisits(q)
		if err != nil {
			return err
		}
		visits += n
	}
	s.monitorRows(run, visits, growth(before, afterQuiet), growth(startRun, endRun), quiet, busy, runningAfterProbes)
	return nil
}

// probeResult is the latency of interactive requests, in ms, and how
// many failed.
type probeResult struct {
	Misses, Hits []float64
	Failed       int
}

// probe sends s.n.Misses x 2 fresh misses and then 50 cache hits of
// body, one at a time, and times each.
func (s *suite) probe(tag, hit string) probeResult {
	var r probeResult
	for i := range 2 * s.n.Misses {
		d, err := s.overview(overviewBody(fmt.Sprintf("bench monitor probe %s %s %d", tag, s.res.Time, i), true))
		if err != nil {
			r.Failed++
			fmt.Fprintln(s.log, "bench: monitor probe:", err)
			continue
		}
		r.Misses = append(r.Misses, ms(d))
	}
	for range 50 {
		d, err := s.overview(hit)
		if err != nil {
			r.Failed++
			continue
		}
		r.Hits = append(r.Hits, ms(d))
	}
	return r
}

// monitorRows adds the figure's rows.
func (s *suite) monitorRows(run runView, visits int, quiet, busy map[string]tableSize, without, during probeResult, overlapped bool) {
	took := run.FinishedAt.Sub(run.StartedAt)
	read := run.Counts.Read
	s.res.add(row{Figure: fmt.Sprintf("monitor run: a daily monitor of %d targets, one worker of %d tabs (readings at most %d at once)", run.Counts.Targets, monitorTabs, monitorTabs/2),
		Kisa:     fmt.Sprintf("run took %s (%.2f readings/s); %d read, %d failed", took.Round(time.Second), float64(read)/took.Seconds(), read, run.Counts.Failed),
		Baseline: "-", Ratio: "-", Target: "every target read", Met: yes(read == run.Counts.Targets),
		Raw: map[string]any{"run": run, "seconds": took.Seconds()}})

	rows, bytes, rowBytes := int64(0), int64(0), int64(0)
	var parts []string
	per := map[string]tableSize{}
	for _, name := range sortedKeys(busy) {
		d := tableSize{Rows: busy[name].Rows - quiet[name].Rows, Bytes: busy[name].Bytes - quiet[name].Bytes,
			RowBytes: busy[name].RowBytes - quiet[name].RowBytes}
		if d.Rows == 0 && d.Bytes == 0 && d.RowBytes == 0 {
			continue
		}
		per[name] = d
		rows, bytes, rowBytes = rows+d.Rows, bytes+d.Bytes, rowBytes+d.RowBytes
		if read > 0 {
			parts = append(parts, fmt.Sprintf("%s %.2f rows, %.0f bytes of row data, table +%.0f bytes", name,
				float64(d.Rows)/float64(read), float64(d.RowBytes)/float64(read), float64(d.Bytes)/float64(read)))
		}
	}
	perReading := func(n int64) float64 { return float64(n) / float64(max(read, 1)) }
	s.res.add(row{Figure: fmt.Sprintf("monitor cost per reading (a daily monitor of %d targets: %d readings a day)", run.Counts.Targets, run.Counts.Targets),
		Kisa: fmt.Sprintf("%.2f browser visits, %.1f PostgreSQL rows, %.1f kB of row data (tables with indexes grew %.1f kB) per reading",
			perReading(int64(visits)), perReading(rows), perReading(rowBytes)/1000, perReading(bytes)/1000),
		Baseline: "-", Ratio: "-", Target: "one visit per reading", Met: yes(visits == read),
		Raw: map[string]any{"visits": visits, "readings": read, "tables": per}})
	s.res.note("monitor, PostgreSQL growth per reading by table (the run's, less the probes'): %s.", strings.Join(parts, "; "))

	note := ""
	if !overlapped {
		note = " (the run ended before the probes did)"
	}
	// A miss that queued behind readings would take a multiple of its
	// time; a hit waits for no tab, only for CPU that Chromium shares.
	for _, k := range []struct {
		what   string
		a, b   []float64
		target string
		met    func(during, without float64) bool
	}{
		{"misses: fresh overview, 3 screenshots, one at a time", during.Misses, without.Misses, "<= 1.2x median, none failed",
			func(d, w float64) bool { return d <= 1.2*w }},
		{"cache hits: POST overview of a cached query, one at a time", during.Hits, without.Hits, "median <= baseline + 10 ms, none failed",
			func(d, w float64) bool { return d <= w+10 }},
	} {
		ma, mb := median(k.a), median(k.b)
		s.res.add(row{Figure: "interactive " + k.what + ", during a monitor run" + note,
			Kisa:     fmt.Sprintf("median %.1f ms, p99 %.1f ms (%d failed)", ma, p99(k.a), during.Failed),
			Baseline: fmt.Sprintf("median %.1f ms, p99 %.1f ms without a run (%d failed)", mb, p99(k.b), without.Failed),
			Ratio:    fmt.Sprintf("%.2fx median, %+.1f ms", ma/mb, ma-mb), Target: k.target,
			Met: yes(k.met(ma, mb) && during.Failed == 0 && overlapped),
			Raw: map[string]any{"during_ms": k.a, "without_ms": k.b}})
	}
}

// runView is the part of a monitor run the figure reads.
type runView struct {
	ID         string    `json:"id"`
	Status     string    `json:"status"`
	StartedAt  time.Time `json:"startedAt"`
	FinishedAt time.Time `json:"finishedAt"`
	Counts     struct {
		Targets, Read, Failed, Pending int
	} `json:"counts"`
}

// createMonitor creates a daily monitor of s.n.Targets distinct queries,
// scheduled 12 hours from now so that only the run by hand reads them.
func (s *suite) createMonitor() (string, []string, error) {
	targets := make([]map[string]string, s.n.Targets)
	queries := make([]string, s.n.Targets)
	for i := range targets {
		queries[i] = fmt.Sprintf("bench monitor %s target %d", s.res.Time, i)
		targets[i] = map[string]string{"query": queries[i], "countryCode": "us", "languageCode": "en"}
	}
	body, _ := json.Marshal(map[string]any{"name": "bench " + s.res.Time, "targets": targets,
		"schedule": map[string]string{"type": "daily", "time": time.Now().UTC().Add(12 * time.Hour).Format("15:04")}})
	var v struct {
		Data struct{ ID string } `json:"data"`
	}
	if err := s.post("/v1/monitors", string(body), http.StatusCreated, &v); err != nil {
		return "", nil, err
	}
	return v.Data.ID, queries, nil
}

// waitRun polls the monitor's run until it is no longer running.
func (s *suite) waitRun(id string) (runView, error) {
	deadline := time.Now().Add(3 * time.Hour)
	for time.Now().Before(deadline) {
		r, err := s.lastRun(id)
		if err != nil {
			return r, err
		}
		if r.Status != "running" {
			return r, nil
		}
		select {
		case <-s.ctx.Done():
			return r, s.ctx.Err()
		case <-time.After(2 * time.Second):
		}
	}
	return runView{}, fmt.Errorf("monitor %s: the run did not end within 3 hours", id)
}

// lastRun returns the monitor's newest run.
func (s *suite) lastRun(id string) (runView, error) {
	var v struct {
		Data struct{ Items []runView } `json:"data"`
	}
	if err := s.getJSON(s.web+"/v1/monitors/"+id+"/runs?limit=1", &v); err != nil {
		return runView{}, err
	}
	if len(v.Data.Items) == 0 {
		return runView{}, fmt.Errorf("monitor %s has no run", id)
	}
	return v.Data.Items[0], nil
}

// deleteMonitors deletes the demo account's monitors, left by a run of
// the suite that stopped half way: their runs would share the worker.
func (s *suite) deleteMonitors() error {
	var v struct {
		Data struct{ Items []struct{ ID string } } `json:"data"`
	}
	if err := s.getJSON(s.web+"/v1/monitors?limit=100", &v); err != nil {
		return err
	}
	for _, m := range v.Data.Items {
		s.deleteMonitor(m.ID)
	}
	return nil
}

// deleteMonitor deletes a monitor, its runs and readings.
func (s *suite) deleteMonitor(id string) {
	req, _ := http.NewRequestWithContext(context.WithoutCancel(s.ctx), http.MethodDelete, s.web+"/v1/monitors/"+id, nil)
	req.Header.Set("Authorization", "Bearer "+s.key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Fprintln(s.log, "bench: delete monitor:", err)
		return
	}
	resp.Body.Close()
}

// post sends body to path on web and decodes the answer's JSON into v
// (if not nil); another status than want is an error.
func (s *suite) post(path, body string, want int, v any) error {
	req, _ := http.NewRequestWithContext(s.ctx, http.MethodPost, s.web+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+s.key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		return fmt.Errorf("POST %s: %s %.300s", path, resp.Status, b)
	}
	if v == nil {
		return nil
	}
	return json.NewDecoder(bytes.NewReader(b)).Decode(v)
}

// tableSize is a table's row count, its size with indexes and TOAST (over
// its partitions, if it has any), and the size of its rows' data
// (pg_column_size of each row). The table's size grows by whole pages and
// not at all while rows fill space that deleted rows left, so the rows'
// size is what a reading costs in data; the table's, what the disk saw.
type tableSize struct{ Rows, Bytes, RowBytes int64 }

// tableSizes measures every table of the public schema.
func tableSizes(ctx context.Context, db *storage.DB) (map[string]tableSize, error) {
	rows, err := db.SQL().QueryContext(ctx, `
		SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition`)
	if err != nil {
		return nil, fmt.Errorf("list tables: %w", err)
	}
	var names []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			rows.Close()
			return nil, err
		}
		names = append(names, name)
	}
	rows.Close()
	out := map[string]tableSize{}
	for _, name := range names {
		var t tableSize
		quoted := `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
		err := db.SQL().QueryRowContext(ctx, `SELECT (SELECT count(*) FROM `+quoted+`),
			(SELECT coalesce(sum(pg_total_relation_size(relid)), 0)::bigint FROM pg_partition_tree($1::regclass)),
			(SELECT coalesce(sum(pg_column_size(t.*)), 0)::bigint FROM `+quoted+` t)`, quoted).
			Scan(&t.Rows, &t.Bytes, &t.RowBytes)
		if err != nil {
			return nil, fmt.Errorf("measure table %s: %w", name, err)
		}
		out[name] = t
	}
	return out, nil
}

// growth is each table's change from a to b.
func growth(a, b map[string]tableSize) map[string]tableSize {
	out := map[string]tableSize{}
	for name, t := range b {
		out[name] = tableSize{Rows: t.Rows - a[name].Rows, Bytes: t.Bytes - a[name].Bytes, RowBytes: t.RowBytes - a[name].RowBytes}
	}
	return out
}

// sortedKeys is m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
