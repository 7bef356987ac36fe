package storage

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/kisa-dev/kisa"
)

// ObservedRequest is one request of an account as recorded (issue 26). It
// never holds the key, a body or a secret; Queries holds the browser
// requests' queries only for an account that opted in.
type ObservedRequest struct {
	ID         uuid.UUID `db:"id"`
	At         time.Time `db:"at"`
	AccountID  uuid.UUID `db:"account_id"`
	KeyID      uuid.UUID `db:"key_id"`
	ClientIP   string    `db:"client_ip"`
	UserAgent  string    `db:"user_agent"`
	Method     string    `db:"method"`
	Route      string    `db:"route"`
	Path       string    `db:"path"`
	Status     int       `db:"status"`
	DurationUS int64     `db:"duration_us"`
	RequestID  string    `db:"request_id"`
	Surface    string    `db:"surface"`
	// Items is how many browser results the request asked for; CacheHits
	// of them came from the cache, Joins joined a visit in flight.
	Items     int `db:"items"`
	CacheHits int `db:"cache_hits"`
	Joins     int `db:"joins"`
	// Runs are the task runs the request's items started, JoinedRuns the
	// ones they joined (jobs.OverviewPayload.Run): the visits of those
	// runs are the request's trace.
	Runs       StringList      `db:"runs"`
	JoinedRuns StringList      `db:"joined_runs"`
	AISpent    int             `db:"ai_spent"`
	Failure    *string         `db:"failure"`
	FailedPart *string         `db:"failed_part"`
	Queries    json.RawMessage `db:"queries"`
}

var observationColumns = []string{"id", "at", "account_id", "key_id", "client_ip", "user_agent", "method", "route",
	"path", "status", "duration_us", "request_id", "surface", "items", "cache_hits", "joins", "runs", "joined_runs",
	"ai_spent", "failure", "failed_part", "queries"}

const observationSelect = `id, at, account_id, key_id, client_ip, user_agent, method, route, path, status,
	duration_us, request_id, surface, items, cache_hits, joins, to_json(runs) AS runs, to_json(joined_runs) AS joined_runs,
	ai_spent, failure, failed_part, COALESCE(queries, 'null') AS queries`

func (o ObservedRequest) row() []any {
	var q any
	if len(o.Queries) > 0 {
		q = []byte(o.Queries)
	}
	return []any{o.ID, o.At, o.AccountID, o.KeyID, o.ClientIP, o.UserAgent, o.Method, o.Route, o.Path,
		int16(o.Status), o.DurationUS, o.RequestID, o.Surface, int32(o.Items), int32(o.CacheHits), int32(o.Joins),
		nonNil(o.Runs), nonNil(o.JoinedRuns), int32(o.AISpent), o.Failure, o.FailedPart, q}
}

// ObservedVisit is one attempt of a browser task as the worker recorded it: the
// part of a trace the requests waiting on its run share.
type ObservedVisit struct {
	Run          string          `db:"run"`
	TaskKey      string          `db:"task_key"`
	Attempt      int             `db:"attempt"`
	StartedAt    time.Time       `db:"started_at"`
	DurationUS   int64           `db:"duration_us"`
	Steps        json.RawMessage `db:"steps"` // step name: milliseconds
	ProxyCountry *string         `db:"proxy_country"`
	Failure      *string         `db:"failure"`
	FailedPart   *string         `db:"failed_part"`
}

var visitColumns = []string{"run", "task_key", "attempt", "started_at", "duration_us", "steps", "proxy_country",
	"failure", "failed_part"}

func (v ObservedVisit) row() []any {
	steps := []byte(v.Steps)
	if len(steps) == 0 {
		steps = []byte("{}")
	}
	return []any{v.Run, v.TaskKey, int32(v.Attempt), v.StartedAt, v.DurationUS, steps, v.ProxyCountry, v.Failure, v.FailedPart}
}

// Partitioned tables of observations, each partitioned by day (UTC).
var observationTables = []string{"observations", "observation_visits"}

// InsertObservations writes rows in one COPY. A row whose day has no
// partition yet makes the partitions of the rows' days, and the COPY is
// tried once more.
func (s *DB) InsertObservations(ctx context.Context, rows []ObservedRequest) error {
	src := make([][]any, len(rows))
	days := make([]time.Time, len(rows))
	for i, r := range rows {
		src[i], days[i] = r.row(), r.At
	}
	return s.copyDaily(ctx, "observations", observationColumns, src, days)
}

// InsertVisits writes visits in one COPY, like InsertObservations.
func (s *DB) InsertVisits(ctx context.Context, visits []ObservedVisit) error {
	src := make([][]any, len(visits))
	days := make([]time.Time, len(visits))
	for i, v := range visits {
		src[i], days[i] = v.row(), v.StartedAt
	}
	return s.copyDaily(ctx, "observation_visits", visitColumns, src, days)
}

func (s *DB) copyDaily(ctx context.Context, table string, cols []string, rows [][]any, days []time.Time) error {
	if len(rows) == 0 {
		return nil
	}
	err := s.copyFrom(ctx, table, cols, rows)
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "23514" { // no partition of relation found for row
		for _, d := range days {
			if err := s.CreateObservationPartitions(ctx, d, 1); err != nil {
				return err
			}
		}
		err = s.copyFrom(ctx, table, cols, rows)
	}
	return err
}

// copyFrom runs pgx's COPY on a connection of the pool.
func (s *DB) copyFrom(ctx context.Context, table string, cols []string, rows [][]any) error {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("copy %s: %w", table, err)
	}
	defer conn.Close()
	err = conn.Raw(func(dc any) error {
		_, err := dc.(*stdlib.Conn).Conn().CopyFrom(ctx, pgx.Identifier{table}, cols, pgx.CopyFromRows(rows))
		return err
	})
	if err != nil {
		return fmt.Errorf("copy %s: %w", table, err)
	}
	return nil
}

// CreateObservationPartitions makes the day partitions (UTC) of both
// observation tables for the days days from the one holding from; those
// that exist are left alone.
func (s *DB) CreateObservationPartitions(ctx context.Context, from time.Time, days int) error {
	day := from.UTC().Truncate(24 * time.Hour)
	for i := range days {
		d := day.AddDate(0, 0, i)
		for _, t := range observationTables {
			q := fmt.Sprintf(`CREATE TABLE IF NOT EXISTS %s PARTITION OF %s FOR VALUES FROM ('%s') TO ('%s')`,
				pgx.Identifier{partitionName(t, d)}.Sanitize(), t, d.Format(time.RFC3339), d.AddDate(0, 0, 1).Format(time.RFC3339))
			if _, err := s.db.ExecContext(ctx, q); err != nil {
				var pe *pgconn.PgError
				if errors.As(err, &pe) && (pe.Code == "42P07" || pe.Code == "23505") { // made meanwhile by another process
					continue
				}
				return fmt.Errorf("create partition %s: %w", partitionName(t, d), err)
			}
		}
	}
	return nil
}

func partitionName(table string, day time.Time) string { return table + "_" + day.Format("20060102") }

// DropObservationsBefore drops the day partitions of both observation
// tables that end at or before cutoff (whole days only: a day is kept
// until all of it is past the cutoff). It returns the partitions dropped.
func (s *DB) DropObservationsBefore(ctx context.Context, cutoff time.Time) ([]string, error) {
	var names []string
	err := s.db.SelectContext(ctx, &names, `
		SELECT c.relname FROM pg_inherits i
		JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
		WHERE p.relname = ANY($1) AND c.relname ~ '_[0-9]{8}$'
		ORDER BY c.relname`, observationTables)
	if err != nil {
		return nil, fmt.Errorf("list partitions: %w", err)
	}
	var dropped []string
	for _, n := range names {
		day, err := time.Parse("20060102", n[len(n)-8:])
		if err != nil || day.AddDate(0, 0, 1).After(cutoff) {
			continue
		}
		if _, err := s.db.ExecContext(ctx, `DROP TABLE IF EXISTS `+pgx.Identifier{n}.Sanitize()); err != nil {
			return dropped, fmt.Errorf("drop partition %s: %w", n, err)
		}
		dropped = append(dropped, n)
	}
	return dropped, nil
}

// ObservationFilter selects observations of one account: by key, by
// status between StatusMin and StatusMax (0: any), by route template,
// and by time (From inclusive, To exclusive; zero: unbounded), after a
// cursor (the at and id of the last row of the previous page).
type ObservationFilter struct {
	Account              uuid.UUID
	Key                  *uuid.UUID
	StatusMin, StatusMax int
	Route                string
	From, To             time.Time
	AfterAt              *time.Time
	AfterID              uuid.UUID
	Limit                int
}

// ListObservations returns up to f.Limit of the account's observations,
// newest first.
func (s *DB) ListObservations(ctx context.Context, f ObservationFilter) ([]ObservedRequest, error) {
	q := `SELECT ` + observationSelect + ` FROM observations WHERE account_id = $1
		AND ($2::uuid IS NULL OR key_id = $2) AND ($3 = 0 OR status BETWEEN $3 AND $4) AND ($5 = '' OR route = $5)
		AND ($6::timestamptz IS NULL OR at >= $6) AND ($7::timestamptz IS NULL OR at < $7)
		AND ($8::timestamptz IS NULL OR (at, id) < ($8, $9))
		ORDER BY at DESC, id DESC LIMIT $10`
	out := []ObservedRequest{}
	err := s.db.SelectContext(ctx, &out, q, f.Account, f.Key, f.StatusMin, f.StatusMax, f.Route,
		nullTime(f.From), nullTime(f.To), f.AfterAt, f.AfterID, f.Limit)
	if err != nil {
		return nil, fmt.Errorf("list observations: %w", err)
	}
	for i := range out {
		if string(out[i].Queries) == "null" {
			out[i].Queries = nil
		}
	}
	return out, nil
}

func nullTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// VisitsOfRuns returns the visits of runs that started at or after
// since, oldest first.
func (s *DB) VisitsOfRuns(ctx context.Context, runs []string, since time.Time) ([]ObservedVisit, error) {
	out := []ObservedVisit{}
	if len(runs) == 0 {
		return out, nil
	}
	err := s.db.SelectContext(ctx, &out, `SELECT run, task_key, attempt, started_at, duration_us, steps, proxy_country,
		failure, failed_part FROM observation_visits WHERE run = ANY($1) AND started_at >= $2
		ORDER BY started_at, attempt`, runs, since)
	if err != nil {
		return nil, fmt.Errorf("visits of runs: %w", err)
	}
	return out, nil
}

// UsageRow is one day's use by one key of one surface with one outcome.
type UsageRow struct {
	Day       time.Time `db:"day"`
	KeyID     uuid.UUID `db:"key_id"`
	Surface   string    `db:"surface"`
	Outcome   string    `db:"outcome"`
	Requests  int       `db:"requests"`
	CacheHits int       `db:"cache_hits"`
	Joins     int       `db:"joins"`
	AISpent   int       `db:"ai_spent"`
	Visits    int       `db:"visits"`   // visits made for runs these requests started
	Billable  int       `db:"billable"` // successful browser results
}

// Usage returns the account's use per UTC day, key, surface and outcome
// (success, client_error, server_error) from from to to (exclusive),
// one key's when key is not nil.
func (s *DB) Usage(ctx context.Context, account uuid.UUID, key *uuid.UUID, from, to time.Time) ([]UsageRow, error) {
	out := []UsageRow{}
	err := s.db.SelectContext(ctx, &out, usageQuery, account, key, from, to)
	if err != nil {
		return nil, fmt.Errorf("usage: %w", err)
	}
	return out, nil
}

// usageQuery counts per day, key, surface and outcome. A sync overview
// is billable when it answered 200; an async job or a batch item when it
// came from the cache or its run made a successful visit.
const usageQuery = `
WITH o AS (
	SELECT id, at, (at AT TIME ZONE 'UTC')::date AS day, key_id, surface,
		CASE WHEN status >= 500 THEN 'server_error' WHEN status >= 400 THEN 'client_error' ELSE 'success' END AS outcome,
		status, cache_hits, joins, ai_spent, runs, joined_runs
	FROM observations
	WHERE account_id = $1 AND ($2::uuid IS NULL OR key_id = $2) AND at >= $3 AND at < $4
)
SELECT day::timestamp AT TIME ZONE 'UTC' AS day, key_id, surface, outcome, count(*)::int AS requests,
	sum(cache_hits)::int AS cache_hits, sum(joins)::int AS joins, sum(ai_spent)::int AS ai_spent,
	COALESCE(sum((SELECT count(*) FROM unnest(o.runs) r JOIN observation_visits v ON v.run = r AND v.started_at >= o.at)), 0)::int AS visits,
	COALESCE(sum(CASE
		WHEN surface = 'overview' THEN (status = 200)::int
		WHEN surface IN ('overview_async', 'batch') THEN cache_hits + (SELECT count(*) FROM unnest(o.runs || o.joined_runs) r
			WHERE EXISTS (SELECT 1 FROM observation_visits v WHERE v.run = r AND v.started_at >= o.at - interval '1 hour' AND v.failure IS NULL))
		ELSE 0 END), 0)::int AS billable
FROM o GROUP BY day, key_id, surface, outcome ORDER BY day, key_id, surface, outcome`

// SetStoreQueries turns on or off keeping the queries of an account's
// browser requests in its observations; ErrNotFound for no such account.
func (s *DB) SetStoreQueries(ctx context.Context, account uuid.UUID, on bool) error {
	res, err := s.db.ExecContext(ctx, `UPDATE accounts SET store_queries = $2 WHERE id = $1`, account, on)
	return affected(res, err, kisa.PartAccount, "set store queries")
}
