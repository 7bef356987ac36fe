package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"time"

	"github.com/kisa-dev/kisa/storage"
)

// Sizes of the brands figure (issue 34).
const (
	brandTargets  = 1000
	brandDays     = 90
	brandCount    = 10
	brandRequests = 40
)

// brands: what brand visibility costs (issue 34). A monitor of 1,000
// targets and 10 brands gets 90 days of daily readings written straight
// into PostgreSQL (90,000 readings, each with a text, sources and
// citations of a fixture overview's size and brand figures: about 3 of
// the 10 brands named, 2 cited), then GET .../brands grouped by surface
// and day is timed brandRequests times, one at a time; and the bytes of
// a reading's brand figures (its brand columns, cited domains included)
// are set against the rest of its row, as the monitor figure measures a
// reading's row data.
func (s *suite) brands() error {
	db, err := storage.Open(s.ctx, envValue(s.env, "DATABASE_URL"))
	if err != nil {
		return err
	}
	defer db.Close()
	id, err := s.createBrandMonitor()
	if err != nil {
		return err
	}
	defer s.deleteMonitor(id)
	start := time.Now().UTC().Truncate(24*time.Hour).AddDate(0, 0, -brandDays)
	loaded := time.Now()
	if err := fillBrandReadings(s, db, id, start); err != nil {
		return err
	}
	fmt.Fprintf(s.log, "bench: brands: %d readings written in %s\n", brandTargets*brandDays, time.Since(loaded).Round(time.Second))
	if _, err := db.SQL().ExecContext(s.ctx, `VACUUM ANALYZE monitor_readings`); err != nil {
		return err
	}
	path := fmt.Sprintf("/v1/monitors/%s/brands?groupBy=surface,day&from=%s&to=%s", id,
		start.Format(time.DateOnly), start.AddDate(0, 0, brandDays).Format(time.DateOnly))
	var took []float64
	groups := 0
	for range brandRequests {
		var v struct {
			Data struct {
				Groups []json.RawMessage `json:"groups"`
			} `json:"data"`
		}
		t0 := time.Now()
		if err := s.getJSON(s.web+path, &v); err != nil {
			return err
		}
		took = append(took, ms(time.Since(t0)))
		groups = len(v.Data.Groups)
	}
	var brandBytes, restBytes, rows float64
	err = db.SQL().QueryRowContext(s.ctx, `SELECT count(*),
		sum(COALESCE(pg_column_size(brand_version), 0) + COALESCE(pg_column_size(brand_mentions), 0) + COALESCE(pg_column_size(brand_ranks), 0)
			+ COALESCE(pg_column_size(brand_cited), 0) + COALESCE(pg_column_size(brand_detail), 0) + COALESCE(pg_column_size(cited_domains), 0)),
		sum(pg_column_size(r.*))
		FROM monitor_readings r WHERE monitor_id = $1`, id).Scan(&rows, &brandBytes, &restBytes)
	if err != nil {
		return err
	}
	restBytes -= brandBytes
	// The daily roll-up that the requests made: shared by a day's
	// readings of a target group, counted per reading all the same.
	var rollUp float64
	err = db.SQL().QueryRowContext(s.ctx, `SELECT (SELECT COALESCE(sum(pg_column_size(d.*)), 0) FROM monitor_brand_day_sums d WHERE monitor_id = $1)
		+ (SELECT COALESCE(sum(pg_column_size(b.*)), 0) FROM monitor_brand_days b WHERE monitor_id = $1)`, id).Scan(&rollUp)
	if err != nil {
		return err
	}
	brandBytes += rollUp
	p50, p99v := median(took), p99(took)
	s.res.add(row{Figure: fmt.Sprintf("monitor brands: GET /brands grouped by surface and day, %d targets x %d days of daily readings, %d brands", brandTargets, brandDays, brandCount),
		Kisa: fmt.Sprintf("p50 %.0f ms, p99 %.0f ms (%d groups, %d requests one at a time; the first, which sums the 90 days into the daily roll-up, %.0f ms)",
			p50, p99v, groups, len(took), took[0]),
		Baseline: "-", Ratio: "-", Target: "p50 <= 300 ms, p99 <= 1 s", Met: yes(p50 <= 300 && p99v <= 1000),
		Raw: map[string]any{"ms": took, "groups": groups}})
	share := brandBytes / restBytes
	s.res.add(row{Figure: "monitor brands: a reading's brand figures in PostgreSQL (10 brands)",
		Kisa: fmt.Sprintf("+0 rows, +%.0f bytes of row data per reading, the daily roll-up's %.1f included (the rest of a reading's row %.0f bytes): +%.1f%%",
			brandBytes/rows, rollUp/rows, restBytes/rows, 100*share),
		Baseline: "-", Ratio: "-", Target: "<= +20% of a reading's cost", Met: yes(share <= 0.2),
		Raw: map[string]any{"readings": rows, "brandBytes": brandBytes, "rollUpBytes": rollUp, "restBytes": restBytes}})
	return nil
}

// createBrandMonitor creates a paused monitor of brandTargets targets
// (overview, AI Mode and web search by turns) and brandCount brands.
func (s *suite) createBrandMonitor() (string, error) {
	surfaces := []string{"ai-overview", "ai-mode", "web-search"}
	targets := make([]map[string]string, brandTargets)
	for i := range targets {
		targets[i] = map[string]string{"query": fmt.Sprintf("bench brands %s target %d", s.res.Time, i), "countryCode": "us",
			"languageCode": "en", "surface": surfaces[i%len(surfaces)]}
	}
	brands := make([]map[string]any, brandCount)
	for i := range brands {
		brands[i] = map[string]any{"name": fmt.Sprintf("Brand%d", i), "aliases": []string{fmt.Sprintf("B%d Inc", i)},
			"domains": []string{fmt.Sprintf("brand%d.example", i)}, "own": i == 0}
	}
	body, _ := json.Marshal(map[string]any{"name": "bench brands " + s.res.Time, "targets": targets, "paused": true,
		"schedule": map[string]string{"type": "daily", "time": "06:00"}, "watch": map[string]any{"brands": brands}})
	var v struct {
		Data struct{ ID string } `json:"data"`
	}
	if err := s.post("/v1/monitors", string(body), http.StatusCreated, &v); err != nil {
		return "", err
	}
	return v.Data.ID, nil
}

// fillBrandReadings writes a done run a day from start, each with a
// reading of every target, straight into PostgreSQL.
func fillBrandReadings(s *suite, db *storage.DB, id string, start time.Time) error {
	r := rand.New(rand.NewPCG(1, 2))
	// A vocabulary of 600 made-up words: text that compresses about as
	// well as prose, not as well as a phrase repeated.
	words := make([]string, 600)
	for i := range words {
		w := make([]byte, 3+r.IntN(7))
		for j := range w {
			w[j] = byte('a' + r.IntN(26))
		}
		words[i] = string(w)
	}
	var text strings.Builder
	for text.Len() < 1100 {
		text.WriteString(words[r.IntN(len(words))] + " ")
	}
	var sources []map[string]string
	for i := range 6 {
		sources = append(sources, map[string]string{"url": fmt.Sprintf("https://www.site%d.example/reviews/best-trail-shoes-%d#:~:text=grip", i, r.IntN(1e6)),
			"title": fmt.Sprintf("The best trail running shoes of 2026, tested %d", r.IntN(1e6)), "source": fmt.Sprintf("Site %d", i), "icon": ""})
	}
	sj, _ := json.Marshal(sources)
	cj, _ := json.Marshal(sources[:3])
	_, err := db.SQL().ExecContext(s.ctx, `INSERT INTO monitor_runs (id, monitor_id, account_id, slot, trigger, status, targets, started_at, finished_at)
		SELECT gen_random_uuid(), m.id, m.account_id, d, 'schedule', 'done', $3, d, d + interval '10 minutes'
		FROM monitors m, generate_series($2::timestamptz, $2::timestamptz + ($4 - 1) * interval '1 day', interval '1 day') d
		WHERE m.id = $1`, id, start, brandTargets, brandDays)
	if err != nil {
		return fmt.Errorf("brands: runs: %w", err)
	}
	// About 3 of the 10 brands named (1 to 3 times, ranked in order) and
	// 2 cited, varying by reading.
	_, err = db.SQL().ExecContext(s.ctx, `INSERT INTO monitor_readings (id, run_id, monitor_id, target_id, status, attempts,
			has_overview, complete, text, sources, citations, taken_at, created_at, finished_at, sample,
			brand_version, brand_mentions, brand_ranks, brand_cited, brand_detail, cited_domains)
		SELECT gen_random_uuid(), u.id, u.monitor_id, t.id, 'done', 1, true, true, $2, $3::jsonb, $4::jsonb,
			u.slot + t.position * interval '500 ms', u.slot, u.slot + t.position * interval '500 ms', 1, m.brand_version,
			ARRAY(SELECT CASE WHEN (hashtext(t.id::text || u.id::text || b) & 7) < 2 THEN 1 + (b % 3) ELSE 0 END
				FROM generate_series(1, $5) b)::smallint[],
			ARRAY(SELECT CASE WHEN (hashtext(t.id::text || u.id::text || b) & 7) < 2 THEN 1 + (b % 4) ELSE 0 END
				FROM generate_series(1, $5) b)::smallint[],
			ARRAY(SELECT CASE WHEN (hashtext(u.id::text || t.id::text || b) & 7) < 2 THEN b % 6 + 1 ELSE 0 END
				FROM generate_series(1, $5) b)::smallint[],
			'{"0":{"c":[1],"p":[0,142]},"3":{"p":[143,288]},"5":{"c":[2,4],"p":[290,401]}}'::jsonb,
			ARRAY['site0.example','site1.example','site2.example','site3.example','site4.example','site5.example']
		FROM monitor_runs u JOIN monitor_targets t ON t.monitor_id = u.monitor_id JOIN monitors m ON m.id = u.monitor_id
		WHERE u.monitor_id = $1`, id, text.String(), string(sj), string(cj), brandCount)
	if err != nil {
		return fmt.Errorf("brands: readings: %w", err)
	}
	return nil
}
