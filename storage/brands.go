package storage

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
)

// brandDimensions maps each grouping of brand aggregates to its SQL
// expression over a reading r and its target t, and over a day's sums d
// (monitor_brand_day_sums).
var brandDimensions = map[string][2]string{
	"surface":  {"t.surface", "d.surface"},
	"country":  {"t.country_code", "d.country_code"},
	"device":   {"t.device", "d.device"},
	"language": {"t.language_code", "d.language_code"},
	"day":      {"to_char(r.taken_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')", "to_char(d.day, 'YYYY-MM-DD')"},
}

// BrandAggregate is one brand's sums over the readings of one group
// measured against one version of the brands: Brand is its index in that
// version, Key the group's values in the order asked. The sums of one
// group may come in several parts (the daily roll-up's and the
// readings'), which add up.
type BrandAggregate struct {
	Key         StringList
	Version     int
	Brand       int
	Readings    int // readings measured
	Answers     int // of them, readings of an answer surface (not web search)
	Mentioned   int // readings naming it
	Mentions    int // its mentions over them
	Ranked      int // readings with a first-mention rank
	RankSum     int // the sum of those ranks
	Cited       int // readings citing it
	PositionSum int // the sum of its first citation positions
}

// brandSums is one row of a brand aggregates query: per group and
// version, each figure's sums by brand index (JSON arrays).
type brandSums struct {
	Key         StringList `db:"key"`
	Version     int        `db:"version"`
	Readings    int        `db:"readings"`
	Answers     int        `db:"answers"`
	Mentioned   IntList    `db:"mentioned"`
	Mentions    IntList    `db:"mentions"`
	Ranked      IntList    `db:"ranked"`
	RankSum     IntList    `db:"rank_sum"`
	Cited       IntList    `db:"cited"`
	PositionSum IntList    `db:"position_sum"`
}

// day is a UTC day's length.
const day = 24 * time.Hour

// BrandAggregates sums the brand figures of monitor's successful readings
// taken in [from, to), grouped by dims (BrandGroupings of the monitor
// package), per version of the brands and brand (brands: the most
// brands of a version), in PostgreSQL. Whole UTC days that ended before
// closed are read from the daily roll-up (monitor_brand_days), summed
// there first where a day is missing; the rest of the span (its partial
// days, the days not yet closed) from the readings. A zero closed reads
// every reading.
func (s *DB) BrandAggregates(ctx context.Context, monitor uuid.UUID, from, to time.Time, dims []string, brands int, closed time.Time) ([]BrandAggregate, error) {
	for _, d := range dims {
		if _, ok := brandDimensions[d]; !ok {
			return nil, fmt.Errorf("brand aggregates: unknown dimension %q", d)
		}
	}
	brands = max(brands, 1)
	first, last := from.UTC().Truncate(day), to.UTC().Truncate(day)
	if first.Before(from) {
		first = first.Add(day)
	}
	if c := closed.UTC().Truncate(day); c.Before(last) {
		last = c
	}
	if first.Before(last) {
		var oldest *time.Time
		if err := s.db.GetContext(ctx, &oldest, `SELECT min(taken_at) FROM monitor_readings
			WHERE monitor_id = $1 AND status = 'done'`, monitor); err != nil {
			return nil, dbError("brand aggregates", err)
		}
		if oldest != nil && oldest.UTC().Truncate(day).After(first) {
			first = oldest.UTC().Truncate(day) // no reading before: the readings' query finds none there
		}
	}
	if !first.Before(last) {
		return s.readingBrandSums(ctx, monitor, from, to, to, to, dims, brands)
	}
	if err := s.rollUpBrandDays(ctx, monitor, first, last, brands); err != nil {
		return nil, err
	}
	out, err := s.dayBrandSums(ctx, monitor, first, last, dims, brands)
	if err != nil {
		return nil, err
	}
	rest, err := s.readingBrandSums(ctx, monitor, from, first, last, to, dims, brands)
	return append(out, rest...), err
}

// perBrand is f(i) for each brand index i from 1 (SQL arrays count from
// 1), joined between start and end: a JSON array ("jsonb_build_array(",
// ")") or an integer array ("ARRAY[", "]::integer[]").
func perBrand(brands int, start, end string, f func(i int) string) string {
	parts := make([]string, brands)
	for i := range parts {
		parts[i] = f(i + 1)
	}
	return start + strings.Join(parts, ", ") + end
}

// brandFigures are the sums of the readings r of a group, each an array
// of one element per brand between start and end, in the order of
// brandFigureNames: for each of the mentions, first-mention ranks and
// first citation positions, the readings with one and their sum.
func brandFigures(brands int, start, end string) []string {
	var out []string
	for _, col := range []string{"brand_mentions", "brand_ranks", "brand_cited"} {
		out = append(out,
			perBrand(brands, start, end, func(i int) string { return fmt.Sprintf("count(*) FILTER (WHERE r.%s[%d] > 0)", col, i) }),
			perBrand(brands, start, end, func(i int) string { return fmt.Sprintf("COALESCE(sum(r.%s[%d]), 0)", col, i) }))
	}
	return out
}

// brandFigureNames name brandFigures' sums, as brandSums and
// monitor_brand_day_sums do.
var brandFigureNames = []string{"mentioned", "mentions", "ranked", "rank_sum", "cited", "position_sum"}

// readingBrandSums sums the readings taken in [from1, to1) and [from2,
// to2) (an empty span reads none).
func (s *DB) readingBrandSums(ctx context.Context, monitor uuid.UUID, from1, to1, from2, to2 time.Time, dims []string, brands int) ([]BrandAggregate, error) {
	exprs := dimensions(dims, 0)
	figures := brandFigures(brands, "jsonb_build_array(", ")")
	for i, name := range brandFigureNames {
		figures[i] += " AS " + name
	}
	q := `SELECT jsonb_build_array(` + strings.Join(exprs, ", ") + `) AS key, r.brand_version AS version,
		count(*) AS readings, count(*) FILTER (WHERE t.surface <> 'web-search') AS answers, ` +
		strings.Join(figures, ", ") + `
		FROM monitor_readings r JOIN monitor_targets t ON t.id = r.target_id
		WHERE r.monitor_id = $1 AND r.status = 'done' AND r.brand_version IS NOT NULL
			AND (r.taken_at >= $2 AND r.taken_at < $3 OR r.taken_at >= $4 AND r.taken_at < $5)
		GROUP BY ` + strings.Join(append(exprs, "r.brand_version"), ", ")
	var rows []brandSums
	if err := s.db.SelectContext(ctx, &rows, q, monitor, from1, to1, from2, to2); err != nil {
		return nil, dbError("brand aggregates", err)
	}
	return aggregatesOf(rows, brands), nil
}

// dayBrandSums sums the daily roll-up of the UTC days in [first, last).
func (s *DB) dayBrandSums(ctx context.Context, monitor uuid.UUID, first, last time.Time, dims []string, brands int) ([]BrandAggregate, error) {
	exprs := dimensions(dims, 1)
	var sums []string
	for _, col := range brandFigureNames {
		sums = append(sums, perBrand(brands, "jsonb_build_array(", ")", func(i int) string {
			return fmt.Sprintf("COALESCE(sum(d.%s[%d]), 0)", col, i)
		})+" AS "+col)
	}
	q := `SELECT jsonb_build_array(` + strings.Join(exprs, ", ") + `) AS key, d.brand_version AS version,
		sum(d.readings) AS readings, sum(d.answers) AS answers, ` + strings.Join(sums, ", ") + `
		FROM monitor_brand_day_sums d WHERE d.monitor_id = $1 AND d.day >= $2::date AND d.day < $3::date
		GROUP BY ` + strings.Join(append(exprs, "d.brand_version"), ", ")
	var rows []brandSums
	if err := s.db.SelectContext(ctx, &rows, q, monitor, first.Format(time.DateOnly), last.Format(time.DateOnly)); err != nil {
		return nil, dbError("brand aggregates", err)
	}
	return aggregatesOf(rows, brands), nil
}

// rollUpBrandDays sums the UTC days in [first, last) of monitor that the
// daily roll-up lacks, one row per target group and version of the
// brands, and marks each of them summed (a day without readings too).
// One transaction at a time per monitor does it.
func (s *DB) rollUpBrandDays(ctx context.Context, monitor uuid.UUID, first, last time.Time, brands int) error {
	var have []time.Time
	if err := s.db.SelectContext(ctx, &have, `SELECT day FROM monitor_brand_days WHERE monitor_id = $1 AND day >= $2::date AND day < $3::date`,
		monitor, first.Format(time.DateOnly), last.Format(time.DateOnly)); err != nil {
		return dbError("roll up brand figures", err)
	}
	if len(have) == int(last.Sub(first)/day) {
		return nil
	}
	tx, err := s.db.BeginTxx(ctx, nil)
	if err != nil {
		return dbError("roll up brand figures", err)
	}
	defer tx.Rollback()
	if err := lockBrandDays(ctx, tx, monitor, true); err != nil {
		return err
	}
	var missing []string
	if err := tx.SelectContext(ctx, &missing, `INSERT INTO monitor_brand_days (monitor_id, day)
		SELECT $1, g.day::date FROM generate_series($2::date, $3::date - 1, interval '1 day') AS g(day)
		ON CONFLICT DO NOTHING RETURNING to_char(day, 'YYYY-MM-DD')`,
		monitor, first.Format(time.DateOnly), last.Format(time.DateOnly)); err != nil {
		return dbError("roll up brand figures", err)
	}
	if len(missing) > 0 {
		_, err := tx.ExecContext(ctx, `INSERT INTO monitor_brand_day_sums (monitor_id, day, surface, country_code, device,
				language_code, brand_version, readings, answers, `+strings.Join(brandFigureNames, ", ")+`)
			SELECT $1, (r.taken_at AT TIME ZONE 'UTC')::date, t.surface, t.country_code, t.device, t.language_code, r.brand_version,
				count(*), count(*) FILTER (WHERE t.surface <> 'web-search'), `+
			strings.Join(brandFigures(brands, "ARRAY[", "]::integer[]"), ", ")+`
			FROM monitor_readings r JOIN monitor_targets t ON t.id = r.target_id
			WHERE r.monitor_id = $1 AND r.status = 'done' AND r.brand_version IS NOT NULL
				AND r.taken_at >= $2 AND r.taken_at < $3 AND (r.taken_at AT TIME ZONE 'UTC')::date = ANY($4::date[])
			GROUP BY 2, 3, 4, 5, 6, 7`, monitor, first, last, missing)
		if err != nil {
			return dbError("roll up brand figures", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return dbError("roll up brand figures", err)
	}
	return nil
}

// dimensions are the SQL expressions of dims, over readings (which 0) or
// a day's sums (which 1).
func dimensions(dims []string, which int) []string {
	out := make([]string, len(dims))
	for i, d := range dims {
		out[i] = brandDimensions[d][which]
	}
	return out
}

// aggregatesOf spreads rows into one BrandAggregate per brand index.
func aggregatesOf(rows []brandSums, brands int) []BrandAggregate {
	out := []BrandAggregate{}
	for _, r := range rows {
		for i := range brands {
			at := func(l IntList) int {
				if i < len(l) {
					return l[i]
				}
				return 0
			}
			out = append(out, BrandAggregate{Key: r.Key, Version: r.Version, Brand: i, Readings: r.Readings, Answers: r.Answers,
				Mentioned: at(r.Mentioned), Mentions: at(r.Mentions), Ranked: at(r.Ranked), RankSum: at(r.RankSum),
				Cited: at(r.Cited), PositionSum: at(r.PositionSum)})
		}
	}
	return out
}

// forgetBrandDays deletes the daily roll-up of monitor's UTC day of at
// (with its sums), which a reading taken then changes; the next
// aggregates sum that day again.
func forgetBrandDays(ctx context.Context, tx *sqlx.Tx, monitor uuid.UUID, at time.Time) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM monitor_brand_days WHERE monitor_id = $1 AND day = $2::date`,
		monitor, at.UTC().Format(time.DateOnly)); err != nil {
		return dbError("forget brand days", err)
	}
	return nil
}

// SourceCount is how many successful readings of one surface cite a
// registrable domain (in their sources or inline citations).
type SourceCount struct {
	Domain  string `db:"domain"`
	Surface string `db:"surface"`
	Answers int    `db:"answers"`
}

// SourceCounts returns, for the limit domains cited by the most of
// monitor's successful readings taken in [from, to), the readings citing
// each per surface (most cited first), and the readings with an answer
// per surface, counted in PostgreSQL.
func (s *DB) SourceCounts(ctx context.Context, monitor uuid.UUID, from, to time.Time, limit int) ([]SourceCount, map[string]int, error) {
	const readings = `FROM monitor_readings r JOIN monitor_targets t ON t.id = r.target_id
		WHERE r.monitor_id = $1 AND r.status = 'done' AND r.taken_at >= $2 AND r.taken_at < $3`
	out := []SourceCount{}
	err := s.db.SelectContext(ctx, &out, `WITH per AS (SELECT d.domain, t.surface, count(*) AS answers
			FROM monitor_readings r JOIN monitor_targets t ON t.id = r.target_id
			CROSS JOIN LATERAL unnest(r.cited_domains) AS d(domain)
			WHERE r.monitor_id = $1 AND r.status = 'done' AND r.taken_at >= $2 AND r.taken_at < $3 AND r.has_overview
			GROUP BY d.domain, t.surface),
		top AS (SELECT domain, sum(answers) AS total FROM per GROUP BY domain ORDER BY total DESC, domain LIMIT $4)
		SELECT per.domain, per.surface, per.answers FROM per JOIN top USING (domain)
		ORDER BY top.total DESC, per.domain, per.surface`, monitor, from, to, limit)
	if err != nil {
		return nil, nil, dbError("source counts", err)
	}
	var totals []struct {
		Surface string `db:"surface"`
		Answers int    `db:"answers"`
	}
	if err := s.db.SelectContext(ctx, &totals, `SELECT t.surface, count(*) AS answers `+readings+`
		AND r.has_overview GROUP BY t.surface`, monitor, from, to); err != nil {
		return nil, nil, dbError("source counts", err)
	}
	m := map[string]int{}
	for _, t := range totals {
		m[t.Surface] = t.Answers
	}
	return out, m, nil
}

// lockBrandDays takes monitor's roll-up lock until tx ends: exclusive to
// sum days, shared to change a reading (so that a reading finished
// during a roll-up is either in its sums or forgets its day after it).
// The lock is PostgreSQL's advisory lock, which writes nothing.
func lockBrandDays(ctx context.Context, tx *sqlx.Tx, monitor uuid.UUID, exclusive bool) error {
	f := "pg_advisory_xact_lock_shared"
	if exclusive {
		f = "pg_advisory_xact_lock"
	}
	if _, err := tx.ExecContext(ctx, `SELECT `+f+`(hashtextextended('monitor_brand_days ' || $1::text, 0))`, monitor); err != nil {
		return dbError("brand days lock", err)
	}
	return nil
}
