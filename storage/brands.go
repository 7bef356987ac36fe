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
	Key         StringList `db:"key"`
	Version     int        `db:"version"`
	Brand       int        `db:"brand"`
	Readings    int        `db:"readings"`     // readings measured
	Answers     int        `db:"answers"`      // of them, readings of an answer surface (not web search)
	Mentioned   int        `db:"mentioned"`    // readings naming it
	Mentions    int        `db:"mentions"`     // its mentions over them
	Ranked      int        `db:"ranked"`       // readings with a first-mention rank
	RankSum     int        `db:"rank_sum"`     // the sum of those ranks
	Cited       int        `db:"cited"`        // readings citing it
	PositionSum int        `db:"position_sum"` // the sum of its first citation positions
}

// BrandAggregates sums the brand figures of monitor's successful readings
// taken in [from, to), grouped by dims (keys of BrandDimensions, checked
// by the caller), per version of the brands and brand, in PostgreSQL.
func (s *DB) BrandAggregates(ctx context.Context, monitor uuid.UUID, from, to time.Time, dims []string) ([]BrandAggregate, error) {
	exprs := make([]string, len(dims))
	for i, d := range dims {
		e, ok := BrandDimensions[d]
		if !ok {
			return nil, fmt.Errorf("brand aggregates: unknown dimension %q", d)
		}
		exprs[i] = e
	}
	group := strings.Join(append(exprs, "r.brand_version", "x.i"), ", ")
	q := `SELECT jsonb_build_array(` + strings.Join(exprs, ", ") + `) AS key, r.brand_version AS version, x.i - 1 AS brand,
		count(*) AS readings, count(*) FILTER (WHERE t.surface <> 'web-search') AS answers,
		count(*) FILTER (WHERE x.m > 0) AS mentioned, COALESCE(sum(x.m), 0) AS mentions,
		count(*) FILTER (WHERE x.rk > 0) AS ranked, COALESCE(sum(x.rk), 0) AS rank_sum,
		count(*) FILTER (WHERE x.c > 0) AS cited, COALESCE(sum(x.c), 0) AS position_sum
		FROM monitor_readings r JOIN monitor_targets t ON t.id = r.target_id
		CROSS JOIN LATERAL unnest(r.brand_mentions, r.brand_ranks, r.brand_cited) WITH ORDINALITY AS x(m, rk, c, i)
		WHERE r.monitor_id = $1 AND r.status = 'done' AND r.taken_at >= $2 AND r.taken_at < $3
			AND r.brand_version IS NOT NULL
		GROUP BY ` + group
	out := []BrandAggregate{}
	if err := s.db.SelectContext(ctx, &out, q, monitor, from, to); err != nil {
		return nil, dbError("brand aggregates", err)
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
