package storage

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/kisa-dev/kisa"
)

// Monitor is one of an account's monitors (issue 24).
type Monitor struct {
	ID           uuid.UUID       `db:"id"`
	AccountID    uuid.UUID       `db:"account_id"`
	Name         string          `db:"name"`
	Schedule     json.RawMessage `db:"schedule"`
	Cron         string          `db:"cron"`
	WatchDomains StringList      `db:"watch_domains"`
	WebhookURL   *string         `db:"webhook_url"`
	Paused       bool            `db:"paused"`
	// Brands is the current version of the monitor's brands
	// ([]monitor.Brand as JSON); BrandVersion numbers it (0: never had
	// any).
	Brands       json.RawMessage `db:"brands"`
	BrandVersion int             `db:"brand_version"`
	Targets      int             `db:"targets"` // how many it has
	CreatedAt    time.Time       `db:"created_at"`
	UpdatedAt    time.Time       `db:"updated_at"`
}

const monitorColumns = `m.id, m.account_id, m.name, m.schedule, m.cron, array_to_json(m.watch_domains) AS watch_domains, m.webhook_url, m.paused,
	m.brands, m.brand_version, (SELECT count(*) FROM monitor_targets t WHERE t.monitor_id = m.id) AS targets, m.created_at, m.updated_at`

// MonitorTarget is one target of a monitor.
type MonitorTarget struct {
	ID           uuid.UUID `db:"id"`
	MonitorID    uuid.UUID `db:"monitor_id"`
	Position     int       `db:"position"`
	Surface      string    `db:"surface"`
	Query        string    `db:"query"`
	CountryCode  string    `db:"country_code"`
	LanguageCode string    `db:"language_code"`
	Device       string    `db:"device"` // kisa.DeviceDesktop or kisa.DeviceMobile
	// Location is the geo.Location's JSON; nil for the whole country.
	Location []byte `db:"location"`
	// Samples is how many readings a run makes of the target (1 to 5).
	Samples   int       `db:"samples"`
	Identity  string    `db:"identity"`
	CreatedAt time.Time `db:"created_at"`
}

// StringList is a text[] column read as JSON (array_to_json).
type StringList []string

// Scan decodes the JSON array of the column.
func (l *StringList) Scan(src any) error {
	var b []byte
	switch v := src.(type) {
	case []byte:
		b = v
	case string:
		b = []byte(v)
	case nil:
		*l = StringList{}
		return nil
	default:
		return fmt.Errorf("StringList: cannot scan %T", src)
	}
	return json.Unmarshal(b, (*[]string)(l))
}

const targetColumns = `id, monitor_id, position, surface, query, country_code, language_code, device, location, samples, identity, created_at`

// MonitorDef is what creating or replacing a monitor stores. Targets keep
// their id (and history) across a replacement when their Identity stays.
type MonitorDef struct {
	Name         string
	Schedule     json.RawMessage
	Cron         string
	WatchDomains []string
	WebhookURL   *string
	Paused       bool
	// Brands is []monitor.Brand as JSON: a new version of the monitor's
	// brands when it differs from the current one.
	Brands  json.RawMessage
	Targets []MonitorTarget // Position is the index; ID is made for new ones
}

// CreateMonitor stores a new monitor of account with its targets.
func (s *DB) CreateMonitor(ctx context.Context, account, id uuid.UUID, d MonitorDef) (Monitor, error) {
	tx, err := s.db.BeginTxx(ctx, nil)
	if err != nil {
		return Monitor{}, dbError("create monitor", err)
	}
	defer tx.Rollback()
	_, err = tx.ExecContext(ctx, `INSERT INTO monitors (id, account_id, name, schedule, cron, watch_domains, webhook_url, paused)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
		id, account, d.Name, string(d.Schedule), d.Cron, nonNil(d.WatchDomains), d.WebhookURL, d.Paused)
	if err != nil {
		return Monitor{}, dbError("create monitor", err)
	}
	if err := putTargets(ctx, tx, id, d.Targets); err != nil {
		return Monitor{}, err
	}
	if err := putBrands(ctx, tx, id, d.Brands); err != nil {
		return Monitor{}, err
	}
	if err := tx.Commit(); err != nil {
		return Monitor{}, dbError("create monitor", err)
	}
	return s.Monitor(ctx, account, id)
}

// putTargets inserts or updates (by identity) the targets of monitor in
// their given order, in one statement.
func putTargets(ctx context.Context, tx *sqlx.Tx, monitor uuid.UUID, ts []MonitorTarget) error {
	col := func() []string { return make([]string, len(ts)) }
	ids, surfaces, queries, countries, langs, devices, locs, idents := col(), col(), col(), col(), col(), col(), col(), col()
	samples := make([]int, len(ts))
	for i, t := range ts {
		if t.ID == uuid.Nil {
			t.ID, _ = uuid.NewV7()
		}
		ids[i], surfaces[i], queries[i], countries[i], langs[i], idents[i] = t.ID.String(), t.Surface, t.Query,
			t.CountryCode, t.LanguageCode, t.Identity
		devices[i], locs[i], samples[i] = t.Device, string(t.Location), max(t.Samples, 1)
	}
	_, err := tx.ExecContext(ctx, `
		INSERT INTO monitor_targets (id, monitor_id, position, surface, query, country_code, language_code, device, location, identity, samples)
		SELECT t.id::uuid, $1, t.ord - 1, t.surface, t.query, t.country, t.lang, COALESCE(NULLIF(t.device, ''), 'desktop'),
			NULLIF(t.loc, '')::jsonb, t.ident, t.samples
		FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::int[])
			WITH ORDINALITY AS t(id, surface, query, country, lang, device, loc, ident, samples, ord)
		ON CONFLICT (monitor_id, identity) DO UPDATE SET position = EXCLUDED.position, query = EXCLUDED.query,
			samples = EXCLUDED.samples`,
		monitor, ids, surfaces, queries, countries, langs, devices, locs, idents, samples)
	if err != nil {
		return dbError("store targets", err)
	}
	return nil
}

// putBrands makes brands the monitor's current brands: a new version,
// kept in monitor_brand_sets, when they differ from the current ones.
func putBrands(ctx context.Context, tx *sqlx.Tx, monitor uuid.UUID, brands json.RawMessage) error {
	if len(brands) == 0 {
		brands = json.RawMessage(`[]`)
	}
	_, err := tx.ExecContext(ctx, `WITH v AS (UPDATE monitors SET brands = $2::jsonb, brand_version = brand_version + 1
			WHERE id = $1 AND brands <> $2::jsonb RETURNING brand_version)
		INSERT INTO monitor_brand_sets (monitor_id, version, brands) SELECT $1, brand_version, $2::jsonb FROM v`,
		monitor, string(brands))
	if err != nil {
		return dbError("store brands", err)
	}
	return nil
}

// BrandSets returns every version of a monitor's brands by version
// ([]monitor.Brand as JSON).
func (s *DB) BrandSets(ctx context.Context, monitor uuid.UUID) (map[int]json.RawMessage, error) {
	var rows []struct {
		Version int             `db:"version"`
		Brands  json.RawMessage `db:"brands"`
	}
	if err := s.db.SelectContext(ctx, &rows, `SELECT version, brands FROM monitor_brand_sets WHERE monitor_id = $1`, monitor); err != nil {
		return nil, dbError("brand sets", err)
	}
	out := make(map[int]json.RawMessage, len(rows))
	for _, r := range rows {
		out[r.Version] = r.Brands
	}
	return out, nil
}

// ReplaceMonitor replaces the definition of one of account's monitors:
// targets whose identity is gone are removed with their history, the
// others keep theirs. A kisa.NotFound failure when account has no such
// monitor.
func (s *DB) ReplaceMonitor(ctx context.Context, account, id uuid.UUID, d MonitorDef) (Monitor, error) {
	tx, err := s.db.BeginTxx(ctx, nil)
	if err != nil {
		return Monitor{}, dbError("replace monitor", err)
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `UPDATE monitors SET name = $3, schedule = $4, cron = $5, watch_domains = $6,
		webhook_url = $7, paused = $8, updated_at = clock_timestamp() WHERE id = $1 AND account_id = $2`,
		id, account, d.Name, string(d.Schedule), d.Cron, nonNil(d.WatchDomains), d.WebhookURL, d.Paused)
	if err := affected(res, err, kisa.PartMonitor, "replace monitor"); err != nil {
		return Monitor{}, err
	}
	idents := make([]string, len(d.Targets))
	for i, t := range d.Targets {
		idents[i] = t.Identity
	}
	res, err = tx.ExecContext(ctx, `DELETE FROM monitor_targets WHERE monitor_id = $1 AND NOT identity = ANY($2::text[])`, id, idents)
	if err != nil {
		return Monitor{}, dbError("remove targets", err)
	}
	if n, err := res.RowsAffected(); err != nil || n > 0 {
		// Their readings went with them: the daily roll-up is summed
		// again when next asked for.
		if _, err := tx.ExecContext(ctx, `DELETE FROM monitor_brand_days WHERE monitor_id = $1`, id); err != nil {
			return Monitor{}, dbError("remove targets", err)
		}
	}
	if err := putTargets(ctx, tx, id, d.Targets); err != nil {
		return Monitor{}, err
	}
	if err := putBrands(ctx, tx, id, d.Brands); err != nil {
		return Monitor{}, err
	}
	if err := tx.Commit(); err != nil {
		return Monitor{}, dbError("replace monitor", err)
	}
	return s.Monitor(ctx, account, id)
}

// Monitor returns one of account's monitors, or a kisa.NotFound failure.
func (s *DB) Monitor(ctx context.Context, account, id uuid.UUID) (Monitor, error) {
	var m Monitor
	err := s.db.GetContext(ctx, &m, `SELECT `+monitorColumns+` FROM monitors m WHERE m.id = $1 AND m.account_id = $2`, id, account)
	return m, notFound(err, kisa.PartMonitor, "get monitor")
}

// MonitorByID returns a monitor whatever its account, for the service's
// own use (runs), or a kisa.NotFound failure.
func (s *DB) MonitorByID(ctx context.Context, id uuid.UUID) (Monitor, error) {
	var m Monitor
	err := s.db.GetContext(ctx, &m, `SELECT `+monitorColumns+` FROM monitors m WHERE m.id = $1`, id)
	return m, notFound(err, kisa.PartMonitor, "get monitor")
}

// Cursor is the position after which a newest-first list goes on: the
// time and id of the last item of the previous page.
type Cursor struct {
	At time.Time
	ID uuid.UUID
}

// ListMonitors returns up to limit of account's monitors, newest first,
// after cursor (nil: from the newest).
func (s *DB) ListMonitors(ctx context.Context, account uuid.UUID, after *Cursor, limit int) ([]Monitor, error) {
	q := `SELECT ` + monitorColumns + ` FROM monitors m WHERE m.account_id = $1`
	args := []any{account, limit}
	if after != nil {
		q += ` AND (m.created_at, m.id) < ($3, $4)`
		args = append(args, after.At, after.ID)
	}
	out := []Monitor{}
	if err := s.db.SelectContext(ctx, &out, q+` ORDER BY m.created_at DESC, m.id DESC LIMIT $2`, args...); err != nil {
		return nil, dbError("list monitors", err)
	}
	return out, nil
}

// DeleteMonitor removes one of account's monitors with its history, or
// returns a kisa.NotFound failure.
func (s *DB) DeleteMonitor(ctx context.Context, account, id uuid.UUID) error {
	res, err := s.db.ExecContext(ctx, `DELETE FROM monitors WHERE id = $1 AND account_id = $2`, id, account)
	return affected(res, err, kisa.PartMonitor, "delete monitor")
}

// MonitorTargets returns a monitor's targets in their order.
func (s *DB) MonitorTargets(ctx context.Context, monitor uuid.UUID) ([]MonitorTarget, error) {
	out := []MonitorTarget{}
	err := s.db.SelectContext(ctx, &out, `SELECT `+targetColumns+` FROM monitor_targets WHERE monitor_id = $1 ORDER BY position, id`, monitor)
	if err != nil {
		return nil, dbError("monitor targets", err)
	}
	return out, nil
}

// MonitorTarget returns one target of a monitor, or a kisa.NotFound failure.
func (s *DB) MonitorTarget(ctx context.Context, monitor, id uuid.UUID) (MonitorTarget, error) {
	var t MonitorTarget
	err := s.db.GetContext(ctx, &t, `SELECT `+targetColumns+` FROM monitor_targets WHERE id = $1 AND monitor_id = $2`, id, monitor)
	return t, notFound(err, kisa.PartTarget, "get target")
}

// MonitorPlan is what limits count of one monitor.
type MonitorPlan struct {
	ID      uuid.UUID `db:"id"`
	Cron    string    `db:"cron"`
	Paused  bool      `db:"paused"`
	Targets int       `db:"targets"`
	// Readings is how many readings a run makes (the targets' samples).
	Readings int `db:"readings"`
}

// MonitorPlans returns the plans of account's monitors.
func (s *DB) MonitorPlans(ctx context.Context, account uuid.UUID) ([]MonitorPlan, error) {
	out := []MonitorPlan{}
	err := s.db.SelectContext(ctx, &out, `SELECT m.id, m.cron, m.paused,
		(SELECT count(*) FROM monitor_targets t WHERE t.monitor_id = m.id) AS targets,
		(SELECT COALESCE(sum(t.samples), 0) FROM monitor_targets t WHERE t.monitor_id = m.id) AS readings
		FROM monitors m WHERE m.account_id = $1`, account)
	if err != nil {
		return nil, dbError("monitor plans", err)
	}
	return out, nil
}

// ActiveMonitor is a monitor the scheduler runs.
type ActiveMonitor struct {
	ID   uuid.UUID `db:"id"`
	Cron string    `db:"cron"`
}

// ActiveMonitors returns every monitor that is not paused, for the
// scheduler's configuration.
func (s *DB) ActiveMonitors(ctx context.Context) ([]ActiveMonitor, error) {
	out := []ActiveMonitor{}
	if err := s.db.SelectContext(ctx, &out, `SELECT id, cron FROM monitors WHERE NOT paused ORDER BY id`); err != nil {
		return nil, dbError("active monitors", err)
	}
	return out, nil
}

// Run statuses.
const (
	RunRunning = "running"
	RunDone    = "done"
	RunSkipped = "skipped"
)

// MonitorRun is one run of a monitor with its readings' counts.
type MonitorRun struct {
	ID         uuid.UUID `db:"id"`
	MonitorID  uuid.UUID `db:"monitor_id"`
	AccountID  uuid.UUID `db:"account_id"`
	Slot       time.Time `db:"slot"`
	Trigger    string    `db:"trigger"`
	Status     string    `db:"status"`
	SkipReason *string   `db:"skip_reason"`
	Targets    int       `db:"targets"` // readings in all (targets x samples)
	// DistinctTargets is how many targets the run reads.
	DistinctTargets int        `db:"distinct_targets"`
	Read            int        `db:"read"`    // readings done
	Failed          int        `db:"failed"`  // readings failed for good
	Changed         int        `db:"changed"` // readings with at least one change
	StartedAt       time.Time  `db:"started_at"`
	FinishedAt      *time.Time `db:"finished_at"`
	Delivery
}

const runColumns = `r.id, r.monitor_id, r.account_id, r.slot, r.trigger, r.status, r.skip_reason, r.targets,
	(SELECT count(DISTINCT x.target_id) FROM monitor_readings x WHERE x.run_id = r.id) AS distinct_targets,
	(SELECT count(*) FROM monitor_readings x WHERE x.run_id = r.id AND x.status = 'done') AS read,
	(SELECT count(*) FROM monitor_readings x WHERE x.run_id = r.id AND x.status = 'failed') AS failed,
	(SELECT count(*) FROM monitor_readings x WHERE x.run_id = r.id AND x.changes > 0) AS changed,
	r.started_at, r.finished_at, r.webhook_url, r.webhook_attempts, r.webhook_last_status, r.webhook_delivered_at`

// NewRun is a run to start.
type NewRun struct {
	ID         uuid.UUID
	MonitorID  uuid.UUID
	AccountID  uuid.UUID
	Slot       time.Time
	Trigger    string // "schedule" or "manual"
	SkipReason string // "": the run reads its targets; else it is stored skipped
	WebhookURL *string
	Targets    []uuid.UUID
	// Samples are the readings of each target (parallel to Targets; a
	// missing or zero entry is one).
	Samples []int
}

// Reading statuses.
const (
	ReadingPending = "pending"
	ReadingDone    = "done"
	ReadingFailed  = "failed"
)

// StartRun stores a run and one pending reading per target, unless the
// monitor has a run of that slot already: then created is false and
// nothing is stored. A skipped run stores no readings.
func (s *DB) StartRun(ctx context.Context, r NewRun) (run MonitorRun, readings []uuid.UUID, created bool, err error) {
	tx, err := s.db.BeginTxx(ctx, nil)
	if err != nil {
		return run, nil, false, dbError("start run", err)
	}
	defer tx.Rollback()
	samples := make([]int, len(r.Targets))
	targets := 0
	for i := range r.Targets {
		if i < len(r.Samples) {
			samples[i] = r.Samples[i]
		}
		samples[i] = max(samples[i], 1)
		targets += samples[i]
	}
	status := RunRunning
	if r.SkipReason != "" {
		status, targets = RunSkipped, 0
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO monitor_runs (id, monitor_id, account_id, slot, trigger, status, skip_reason,
		targets, webhook_url, finished_at) VALUES ($1, $2, $3, $4, $5, $6, NULLIF($7, ''), $8, $9,
		CASE WHEN $6 = 'skipped' THEN clock_timestamp() END) ON CONFLICT (monitor_id, slot) DO NOTHING`,
		r.ID, r.MonitorID, r.AccountID, r.Slot, r.Trigger, status, r.SkipReason, targets, r.WebhookURL)
	if err != nil {
		return run, nil, false, dbError("start run", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return run, nil, false, dbError("start run", err)
	} else if n == 0 {
		return run, nil, false, nil
	}
	if status == RunRunning {
		err = tx.SelectContext(ctx, &readings, `INSERT INTO monitor_readings (id, run_id, monitor_id, target_id, status, sample)
			SELECT gen_random_uuid(), $1, $2, t.id::uuid, 'pending', s
			FROM unnest($3::text[], $4::int[]) AS t(id, n), generate_series(1, t.n) AS s RETURNING id`,
			r.ID, r.MonitorID, uuidStrings(r.Targets), samples)
		if err != nil {
			return run, nil, false, dbError("start readings", err)
		}
	}
	if err := tx.GetContext(ctx, &run, `SELECT `+runColumns+` FROM monitor_runs r WHERE r.id = $1`, r.ID); err != nil {
		return run, nil, false, dbError("start run", err)
	}
	if err := tx.Commit(); err != nil {
		return run, nil, false, dbError("start run", err)
	}
	return run, readings, true, nil
}

// VisitsSince counts the readings of account's runs started at or after
// since (the day's budget).
func (s *DB) VisitsSince(ctx context.Context, account uuid.UUID, since time.Time) (int, error) {
	var n int
	err := s.db.GetContext(ctx, &n, `SELECT COALESCE(sum(targets), 0) FROM monitor_runs WHERE account_id = $1 AND started_at >= $2`,
		account, since)
	if err != nil {
		return 0, dbError("visits since", err)
	}
	return n, nil
}

// Runs returns up to limit runs of monitor, newest first, after cursor.
func (s *DB) Runs(ctx context.Context, monitor uuid.UUID, after *Cursor, limit int) ([]MonitorRun, error) {
	q := `SELECT ` + runColumns + ` FROM monitor_runs r WHERE r.monitor_id = $1`
	args := []any{monitor, limit}
	if after != nil {
		q += ` AND (r.started_at, r.id) < ($3, $4)`
		args = append(args, after.At, after.ID)
	}
	out := []MonitorRun{}
	if err := s.db.SelectContext(ctx, &out, q+` ORDER BY r.started_at DESC, r.id DESC LIMIT $2`, args...); err != nil {
		return nil, dbError("list runs", err)
	}
	return out, nil
}

// Run returns a run whatever its account, or a kisa.NotFound failure.
func (s *DB) Run(ctx context.Context, id uuid.UUID) (MonitorRun, error) {
	var r MonitorRun
	err := s.db.GetContext(ctx, &r, `SELECT `+runColumns+` FROM monitor_runs r WHERE r.id = $1`, id)
	return r, notFound(err, kisa.PartRun, "get run")
}

// EndRun marks a run done once none of its readings is pending, and
// returns it; ended is false when readings are still pending or another
// caller ended it first (each run ends once).
func (s *DB) EndRun(ctx context.Context, id uuid.UUID) (run MonitorRun, ended bool, err error) {
	var ok bool
	err = s.db.GetContext(ctx, &ok, `WITH e AS (UPDATE monitor_runs r SET status = 'done', finished_at = clock_timestamp()
		WHERE r.id = $1 AND r.status = 'running' AND NOT EXISTS (
			SELECT 1 FROM monitor_readings x WHERE x.run_id = r.id AND x.status = 'pending') RETURNING 1)
		SELECT EXISTS (SELECT 1 FROM e)`, id)
	if err != nil {
		return run, false, dbError("end run", err)
	}
	if !ok {
		return run, false, nil
	}
	run, err = s.Run(ctx, id)
	return run, err == nil, err
}

// RecordRunDelivery records one attempt of a run's webhook.
func (s *DB) RecordRunDelivery(ctx context.Context, id uuid.UUID, status *int, delivered bool) error {
	return s.recordDelivery(ctx, "monitor_runs", id, status, delivered)
}

// MonitorReading is one reading of a target.
type MonitorReading struct {
	ID          uuid.UUID  `db:"id"`
	RunID       uuid.UUID  `db:"run_id"`
	MonitorID   uuid.UUID  `db:"monitor_id"`
	TargetID    uuid.UUID  `db:"target_id"`
	Status      string     `db:"status"`
	Attempts    int        `db:"attempts"`
	Failure     *string    `db:"failure"`
	FailedPart  *string    `db:"failed_part"`
	HasOverview *bool      `db:"has_overview"`
	Complete    *bool      `db:"complete"`
	Text        *string    `db:"text"`
	Sources     []byte     `db:"sources"`
	Citations   []byte     `db:"citations"`
	Screenshots []byte     `db:"screenshots"`
	TakenAt     *time.Time `db:"taken_at"`
	Changes     int        `db:"changes"`
	CreatedAt   time.Time  `db:"created_at"`
	FinishedAt  *time.Time `db:"finished_at"`
	// Sample is the reading's number among its target's samples in the
	// run, from 1.
	Sample int `db:"sample"`
	BrandFigures
}

// BrandFigures are a reading's figures per brand of the version of its
// monitor's brands it was measured against (nil Version: not measured),
// one element per brand in that version's order: mentions, the first
// mention's rank (0: none), the first citation's position (0: none), and
// Detail (citation positions and passages by brand index, as JSON).
type BrandFigures struct {
	Version  *int    `db:"brand_version"`
	Mentions IntList `db:"brand_mentions"`
	Ranks    IntList `db:"brand_ranks"`
	Cited    IntList `db:"brand_cited"`
	Detail   []byte  `db:"brand_detail"`
}

// IntList is an integer array column read as JSON (array_to_json).
type IntList []int

// Scan decodes the JSON array of the column (NULL: nil).
func (l *IntList) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		*l = nil
		return nil
	case []byte:
		return json.Unmarshal(v, (*[]int)(l))
	case string:
		return json.Unmarshal([]byte(v), (*[]int)(l))
	}
	return fmt.Errorf("IntList: cannot scan %T", src)
}

const readingColumns = `id, run_id, monitor_id, target_id, status, attempts, failure, failed_part, has_overview, complete,
	text, sources, citations, screenshots, taken_at, changes, created_at, finished_at, sample, brand_version,
	array_to_json(brand_mentions) AS brand_mentions, array_to_json(brand_ranks) AS brand_ranks,
	array_to_json(brand_cited) AS brand_cited, brand_detail`

// Reading returns a reading, or a kisa.NotFound failure.
func (s *DB) Reading(ctx context.Context, id uuid.UUID) (MonitorReading, error) {
	var r MonitorReading
	err := s.db.GetContext(ctx, &r, `SELECT `+readingColumns+` FROM monitor_readings WHERE id = $1`, id)
	return r, notFound(err, kisa.PartReading, "get reading")
}

// PreviousReading returns the target's last successful reading taken
// before at (of sample, when sample is above 0); ok is false when there
// is none.
func (s *DB) PreviousReading(ctx context.Context, target uuid.UUID, at time.Time, sample int) (r MonitorReading, ok bool, err error) {
	err = s.db.GetContext(ctx, &r, `SELECT `+readingColumns+` FROM monitor_readings
		WHERE target_id = $1 AND status = 'done' AND taken_at < $2 AND ($3 = 0 OR sample = $3)
		ORDER BY taken_at DESC LIMIT 1`, target, at, sample)
	if err = notFound(err, kisa.PartReading, "previous reading"); errors.Is(err, kisa.NotFound) {
		return r, false, nil
	}
	return r, err == nil, err
}

// RunTargetReadings returns the successful readings of one target in one
// run (its samples) and how many of them are still pending.
func (s *DB) RunTargetReadings(ctx context.Context, run, target uuid.UUID) ([]MonitorReading, int, error) {
	var all []MonitorReading
	err := s.db.SelectContext(ctx, &all, `SELECT `+readingColumns+` FROM monitor_readings
		WHERE run_id = $1 AND target_id = $2 ORDER BY sample`, run, target)
	if err != nil {
		return nil, 0, dbError("run readings", err)
	}
	done, pending := []MonitorReading{}, 0
	for _, r := range all {
		switch r.Status {
		case ReadingDone:
			done = append(done, r)
		case ReadingPending:
			pending++
		}
	}
	return done, pending, nil
}

// PreviousRunReadings returns the successful readings of target in the
// latest run started before run that has any.
func (s *DB) PreviousRunReadings(ctx context.Context, target, run uuid.UUID) ([]MonitorReading, error) {
	out := []MonitorReading{}
	err := s.db.SelectContext(ctx, &out, `SELECT `+readingColumns+` FROM monitor_readings WHERE target_id = $1
		AND status = 'done' AND run_id = (SELECT x.run_id FROM monitor_readings x JOIN monitor_runs u ON u.id = x.run_id
			WHERE x.target_id = $1 AND x.status = 'done' AND x.run_id <> $2
			AND u.started_at < (SELECT started_at FROM monitor_runs WHERE id = $2)
			ORDER BY u.started_at DESC LIMIT 1) ORDER BY sample`, target, run)
	if err != nil {
		return nil, dbError("previous run readings", err)
	}
	return out, nil
}

// AddRunTargetChanges stores change events of a sampled target's run on
// its reading r, once per run and target: a second call (another sample
// that ended at the same time) finds them stored and adds nothing.
func (s *DB) AddRunTargetChanges(ctx context.Context, r MonitorReading, changes []NewChange) error {
	tx, err := s.db.BeginTxx(ctx, nil)
	if err != nil {
		return dbError("add changes", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1::text || $2::text, 0))`,
		r.RunID, r.TargetID); err != nil {
		return dbError("add changes", err)
	}
	var exists bool
	err = tx.GetContext(ctx, &exists, `SELECT EXISTS (SELECT 1 FROM monitor_changes
		WHERE run_id = $1 AND target_id = $2 AND kind LIKE 'brand.%')`, r.RunID, r.TargetID)
	if err != nil {
		return dbError("add changes", err)
	}
	if exists {
		return nil
	}
	if err := insertChanges(ctx, tx, r, changes); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE monitor_readings SET changes = changes + $2 WHERE id = $1`, r.ID, len(changes)); err != nil {
		return dbError("add changes", err)
	}
	if err := tx.Commit(); err != nil {
		return dbError("add changes", err)
	}
	return nil
}

// ReadingResult is what a successful reading stores.
type ReadingResult struct {
	HasOverview bool
	Complete    bool
	Text        string
	Sources     json.RawMessage
	Citations   json.RawMessage
	Screenshots json.RawMessage // nil: none
	TakenAt     time.Time
	Brands      BrandFigures // Version nil: not measured
	// CitedDomains are the registrable domains the sources and inline
	// citations are on, once each.
	CitedDomains []string
}

// NewChange is one change event of a reading.
type NewChange struct {
	Kind   string
	Detail json.RawMessage
}

// FinishReading stores a pending reading's result and its change events;
// done is false when the reading was not pending (a repeated task).
func (s *DB) FinishReading(ctx context.Context, id uuid.UUID, res ReadingResult, changes []NewChange) (done bool, err error) {
	tx, err := s.db.BeginTxx(ctx, nil)
	if err != nil {
		return false, dbError("finish reading", err)
	}
	defer tx.Rollback()
	var r MonitorReading
	err = tx.GetContext(ctx, &r, `UPDATE monitor_readings SET status = 'done', attempts = attempts + 1, failure = NULL,
		failed_part = NULL, has_overview = $2, complete = $3, text = $4, sources = $5, citations = $6, screenshots = $7,
		taken_at = $8, changes = $9, finished_at = clock_timestamp(), brand_version = $10, brand_mentions = $11,
		brand_ranks = $12, brand_cited = $13, brand_detail = $14, cited_domains = $15
		WHERE id = $1 AND status = 'pending' RETURNING `+readingColumns,
		id, res.HasOverview, res.Complete, res.Text, nullJSON(res.Sources), nullJSON(res.Citations),
		nullJSON(res.Screenshots), res.TakenAt, len(changes), res.Brands.Version, smallints(res.Brands.Mentions),
		smallints(res.Brands.Ranks), smallints(res.Brands.Cited), nullJSON(res.Brands.Detail), nonNil(res.CitedDomains))
	if err := notFound(err, kisa.PartReading, "finish reading"); err != nil {
		if errors.Is(err, kisa.NotFound) {
			return false, nil
		}
		return false, err
	}
	if err := insertChanges(ctx, tx, r, changes); err != nil {
		return false, err
	}
	if r.BrandFigures.Version != nil && r.TakenAt != nil {
		// Its day's roll-up, if summed already (a reading finished late),
		// is summed again; the lock waits for a roll-up under way.
		if err := lockBrandDays(ctx, tx, r.MonitorID, false); err != nil {
			return false, err
		}
		if err := forgetBrandDays(ctx, tx, r.MonitorID, *r.TakenAt); err != nil {
			return false, err
		}
	}
	if err := tx.Commit(); err != nil {
		return false, dbError("finish reading", err)
	}
	return true, nil
}

// insertChanges stores the change events of reading r in their order.
func insertChanges(ctx context.Context, tx *sqlx.Tx, r MonitorReading, changes []NewChange) error {
	kinds, details := make([]string, len(changes)), make([]string, len(changes))
	for i, c := range changes {
		kinds[i], details[i] = c.Kind, string(c.Detail)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO monitor_changes (id, monitor_id, run_id, target_id, reading_id, kind, detail)
		SELECT gen_random_uuid(), $1, $2, $3, $4, c.kind, c.detail::jsonb
		FROM unnest($5::text[], $6::text[]) WITH ORDINALITY AS c(kind, detail, ord) ORDER BY c.ord`,
		r.MonitorID, r.RunID, r.TargetID, r.ID, kinds, details); err != nil {
		return dbError("store changes", err)
	}
	return nil
}

// FailReading records a failed attempt of a pending reading: its failure
// and part, and, when final, the reading as failed for good.
func (s *DB) FailReading(ctx context.Context, id uuid.UUID, failure, part string, final bool) error {
	_, err := s.db.ExecContext(ctx, `UPDATE monitor_readings SET attempts = attempts + 1, failure = $2,
		failed_part = NULLIF($3, ''), status = CASE WHEN $4 THEN 'failed' ELSE status END,
		finished_at = CASE WHEN $4 THEN clock_timestamp() END WHERE id = $1 AND status = 'pending'`, id, failure, part, final)
	if err != nil {
		return dbError("fail reading", err)
	}
	return nil
}

// History returns up to limit readings of a target (done and failed)
// created in [from, to), oldest first.
func (s *DB) History(ctx context.Context, target uuid.UUID, from, to time.Time, limit int) ([]MonitorReading, error) {
	out := []MonitorReading{}
	err := s.db.SelectContext(ctx, &out, `SELECT `+readingColumns+` FROM monitor_readings
		WHERE target_id = $1 AND status <> 'pending' AND created_at >= $2 AND created_at < $3
		ORDER BY created_at, id LIMIT $4`, target, from, to, limit)
	if err != nil {
		return nil, dbError("history", err)
	}
	return out, nil
}

// MonitorChange is one stored change event with its target.
type MonitorChange struct {
	ID           uuid.UUID       `db:"id"`
	RunID        uuid.UUID       `db:"run_id"`
	TargetID     uuid.UUID       `db:"target_id"`
	ReadingID    uuid.UUID       `db:"reading_id"`
	Kind         string          `db:"kind"`
	Detail       json.RawMessage `db:"detail"`
	CreatedAt    time.Time       `db:"created_at"`
	Surface      string          `db:"surface"`
	Query        string          `db:"query"`
	CountryCode  string          `db:"country_code"`
	LanguageCode string          `db:"language_code"`
	Device       string          `db:"device"`
	Location     []byte          `db:"location"` // nil: the whole country
}

const changeColumns = `c.id, c.run_id, c.target_id, c.reading_id, c.kind, c.detail, c.created_at,
	t.surface, t.query, t.country_code, t.language_code, t.device, t.location`

// Changes returns up to limit change events of monitor created at or
// after since, oldest first, after cursor (the last of the previous page).
func (s *DB) Changes(ctx context.Context, monitor uuid.UUID, since time.Time, after *Cursor, limit int) ([]MonitorChange, error) {
	q := `SELECT ` + changeColumns + ` FROM monitor_changes c JOIN monitor_targets t ON t.id = c.target_id
		WHERE c.monitor_id = $1 AND c.created_at >= $2`
	args := []any{monitor, since, limit}
	if after != nil {
		q += ` AND (c.created_at, c.id) > ($4, $5)`
		args = append(args, after.At, after.ID)
	}
	out := []MonitorChange{}
	if err := s.db.SelectContext(ctx, &out, q+` ORDER BY c.created_at, c.id LIMIT $3`, args...); err != nil {
		return nil, dbError("list changes", err)
	}
	return out, nil
}

// RunChanges returns the change events of one run, oldest first.
func (s *DB) RunChanges(ctx context.Context, run uuid.UUID) ([]MonitorChange, error) {
	out := []MonitorChange{}
	err := s.db.SelectContext(ctx, &out, `SELECT `+changeColumns+` FROM monitor_changes c
		JOIN monitor_targets t ON t.id = c.target_id WHERE c.run_id = $1 ORDER BY c.created_at, c.id`, run)
	if err != nil {
		return nil, dbError("run changes", err)
	}
	return out, nil
}

// Observation is one successful reading for visibility.
type Observation struct {
	TargetID    uuid.UUID `db:"target_id"`
	CountryCode string    `db:"country_code"`
	TakenAt     time.Time `db:"taken_at"`
	HasOverview bool      `db:"has_overview"`
	Sources     []byte    `db:"sources"`
	Citations   []byte    `db:"citations"`
}

// Observations returns the successful readings of monitor taken in
// [from, to), at most limit.
func (s *DB) Observations(ctx context.Context, monitor uuid.UUID, from, to time.Time, limit int) ([]Observation, error) {
	out := []Observation{}
	err := s.db.SelectContext(ctx, &out, `SELECT r.target_id, t.country_code, r.taken_at, r.has_overview,
		COALESCE(r.sources, '[]') AS sources, COALESCE(r.citations, '[]') AS citations
		FROM monitor_readings r JOIN monitor_targets t ON t.id = r.target_id
		WHERE r.monitor_id = $1 AND r.status = 'done' AND r.taken_at >= $2 AND r.taken_at < $3
		ORDER BY r.taken_at LIMIT $4`, monitor, from, to, limit)
	if err != nil {
		return nil, dbError("observations", err)
	}
	return out, nil
}

// DeleteMonitorRunsBefore removes the runs started before cutoff with
// their readings and changes (KISA_MONITOR_RETENTION); it returns how
// many runs it removed.
func (s *DB) DeleteMonitorRunsBefore(ctx context.Context, cutoff time.Time) (int64, error) {
	// The daily roll-up of the days their readings were taken in (from
	// each run's start to its end) goes too: summed again when next
	// asked for, of the readings left.
	var n int64
	err := s.db.GetContext(ctx, &n, `WITH gone AS (DELETE FROM monitor_runs WHERE started_at < $1
			RETURNING monitor_id, started_at, COALESCE(finished_at, clock_timestamp()) AS ended),
		days AS (DELETE FROM monitor_brand_days b USING gone g WHERE b.monitor_id = g.monitor_id
			AND b.day >= (g.started_at AT TIME ZONE 'UTC')::date AND b.day <= (g.ended AT TIME ZONE 'UTC')::date)
		SELECT count(*) FROM gone`, cutoff)
	if err != nil {
		return 0, dbError("delete runs", err)
	}
	return n, nil
}

// smallints is l as a smallint[] parameter (nil: NULL).
func smallints(l IntList) any {
	if l == nil {
		return nil
	}
	out := make([]int16, len(l))
	for i, n := range l {
		out[i] = int16(min(max(n, -32768), 32767))
	}
	return out
}

func nonNil(l []string) []string {
	if l == nil {
		return []string{}
	}
	return l
}
