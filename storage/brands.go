package storage

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
)

// BrandDimensions maps each grouping of brand aggregates to its SQL
// expression over a reading r and its target t.
var BrandDimensions = map[string]string{
	"surface":  "t.surface",
	"country":  "t.country_code",
	"device":   "t.device",
	"language": "t.language_code",
	"day":      "to_char(r.taken_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')",
}

// BrandAggregate is one brand's sums over the readings of one group
// measured against one version of the brands: Brand is its index in that
// version, Key the group's values in the order asked.
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

// brandSums is one row of BrandAggregates' query: per group and version,
// each figure's sums by brand index (JSON arrays).
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

// BrandAggregates sums the brand figures of monitor's successful readings
// taken in [from, to), grouped by dims (keys of BrandDimensions, checked
// by the caller), per version of the brands and brand, in PostgreSQL:
// one pass over the readings, each brand's sums an aggregate over its
// element of the arrays (brands at most, the most brands of a version).
func (s *DB) BrandAggregates(ctx context.Context, monitor uuid.UUID, from, to time.Time, dims []string, brands int) ([]BrandAggregate, error) {
	exprs := make([]string, 0, len(dims)+1)
	for _, d := range dims {
		e, ok := BrandDimensions[d]
		if !ok {
			return nil, fmt.Errorf("brand aggregates: unknown dimension %q", d)
		}
		exprs = append(exprs, e)
	}
	sums := func(f func(i int) string) string {
		parts := make([]string, max(brands, 1))
		for i := range parts {
			parts[i] = f(i + 1)
		}
		return "jsonb_build_array(" + strings.Join(parts, ", ") + ")"
	}
	q := `SELECT jsonb_build_array(` + strings.Join(exprs, ", ") + `) AS key, r.brand_version AS version,
		count(*) AS readings, count(*) FILTER (WHERE t.surface <> 'web-search') AS answers, ` +
		sums(func(i int) string { return fmt.Sprintf("count(*) FILTER (WHERE r.brand_mentions[%d] > 0)", i) }) + ` AS mentioned, ` +
		sums(func(i int) string { return fmt.Sprintf("COALESCE(sum(r.brand_mentions[%d]), 0)", i) }) + ` AS mentions, ` +
		sums(func(i int) string { return fmt.Sprintf("count(*) FILTER (WHERE r.brand_ranks[%d] > 0)", i) }) + ` AS ranked, ` +
		sums(func(i int) string { return fmt.Sprintf("COALESCE(sum(r.brand_ranks[%d]), 0)", i) }) + ` AS rank_sum, ` +
		sums(func(i int) string { return fmt.Sprintf("count(*) FILTER (WHERE r.brand_cited[%d] > 0)", i) }) + ` AS cited, ` +
		sums(func(i int) string { return fmt.Sprintf("COALESCE(sum(r.brand_cited[%d]), 0)", i) }) + ` AS position_sum
		FROM monitor_readings r JOIN monitor_targets t ON t.id = r.target_id
		WHERE r.monitor_id = $1 AND r.status = 'done' AND r.taken_at >= $2 AND r.taken_at < $3
			AND r.brand_version IS NOT NULL
		GROUP BY ` + strings.Join(append(exprs, "r.brand_version"), ", ")
	var rows []brandSums
	if err := s.db.SelectContext(ctx, &rows, q, monitor, from, to); err != nil {
		return nil, dbError("brand aggregates", err)
	}
	out := []BrandAggregate{}
	for _, r := range rows {
		for i := range max(brands, 1) {
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
	return out, nil
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
