package storage

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/kisa-dev/kisa"
)

// Job statuses, in the order a job goes through them.
const (
	JobQueued  = "queued"
	JobRunning = "running"
	JobDone    = "done"
	JobFailed  = "failed"
)

// Delivery is the webhook state of a job or a batch.
type Delivery struct {
	URL         *string    `db:"webhook_url"`
	Attempts    int        `db:"webhook_attempts"`
	LastStatus  *int       `db:"webhook_last_status"`
	DeliveredAt *time.Time `db:"webhook_delivered_at"`
}

// Job is one async AI overview job of an account.
type Job struct {
	ID             uuid.UUID       `db:"id"`
	AccountID      uuid.UUID       `db:"account_id"`
	BatchID        *uuid.UUID      `db:"batch_id"`
	Key            string          `db:"task_key"`
	Request        json.RawMessage `db:"request"`
	Status         string          `db:"status"`
	Result         []byte          `db:"result"` // a kisa.Result, when done
	IsCached       bool            `db:"is_cached"`
	CacheExpiresIn *int            `db:"cache_expires_in"`
	Failure        *string         `db:"failure"`
	FailedPart     *string         `db:"failed_part"`
	Delivery
	CreatedAt  time.Time  `db:"created_at"`
	StartedAt  *time.Time `db:"started_at"`
	FinishedAt *time.Time `db:"finished_at"`
}

const jobColumns = `id, account_id, batch_id, task_key, request, status, result, is_cached,
	cache_expires_in, failure, failed_part, webhook_url, webhook_attempts, webhook_last_status,
	webhook_delivered_at, created_at, started_at, finished_at`

// Batch is a group of jobs submitted together.
type Batch struct {
	ID        uuid.UUID  `db:"id"`
	AccountID uuid.UUID  `db:"account_id"`
	DoneAt    *time.Time `db:"done_at"`
	CreatedAt time.Time  `db:"created_at"`
	Delivery
}

const batchColumns = `id, account_id, done_at, created_at, webhook_url, webhook_attempts,
	webhook_last_status, webhook_delivered_at`

// NewJob is what submitting a job stores. A job answered from the cache
// is stored done, with its Result.
type NewJob struct {
	ID             uuid.UUID
	Key            string
	Request        json.RawMessage
	Status         string
	Result         json.RawMessage
	IsCached       bool
	CacheExpiresIn *int
	WebhookURL     *string
}

// CreateJobs stores jobs of account in one transaction, with a batch of
// id batch (and its webhook URL) when batch is not uuid.Nil. It returns
// the stored rows in the order given.
func (s *DB) CreateJobs(ctx context.Context, account, batch uuid.UUID, batchWebhook *string, jobs []NewJob) ([]Job, error) {
	tx, err := s.db.BeginTxx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("create jobs: %w", err)
	}
	defer tx.Rollback()
	var batchID *uuid.UUID
	if batch != uuid.Nil {
		batchID = &batch
		if _, err := tx.ExecContext(ctx, `INSERT INTO overview_batches (id, account_id, webhook_url) VALUES ($1, $2, $3)`,
			batch, account, batchWebhook); err != nil {
			return nil, fmt.Errorf("create batch: %w", err)
		}
	}
	out := make([]Job, 0, len(jobs))
	for _, j := range jobs {
		var row Job
		err := tx.GetContext(ctx, &row, `
			INSERT INTO overview_jobs (id, account_id, batch_id, task_key, request, status, result, is_cached,
				cache_expires_in, webhook_url, finished_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, CASE WHEN $6 IN ('done', 'failed') THEN clock_timestamp() END)
			RETURNING `+jobColumns,
			j.ID, account, batchID, j.Key, string(j.Request), j.Status, nullJSON(j.Result), j.IsCached,
			j.CacheExpiresIn, j.WebhookURL)
		if err != nil {
			return nil, fmt.Errorf("create job: %w", err)
		}
		out = append(out, row)
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("create jobs: %w", err)
	}
	return out, nil
}

// nullJSON is SQL NULL for an empty document.
func nullJSON(b json.RawMessage) any {
	if len(b) == 0 {
		return nil
	}
	return string(b)
}

// Job returns one of the account's jobs, or a kisa.NotFound failure.
func (s *DB) Job(ctx context.Context, account, id uuid.UUID) (Job, error) {
	var j Job
	err := s.db.GetContext(ctx, &j, `SELECT `+jobColumns+` FROM overview_jobs WHERE id = $1 AND account_id = $2`, id, account)
	return j, notFound(err, kisa.PartJob, "get job")
}

// JobCursor is the position after which a list of jobs goes on: the
// created_at and id of the last job of the previous page.
type JobCursor struct {
	CreatedAt time.Time
	ID        uuid.UUID
}

// ListJobs returns up to limit of the account's jobs, newest first,
// after cursor (nil: from the newest), with status when it is not "".
func (s *DB) ListJobs(ctx context.Context, account uuid.UUID, status string, after *JobCursor, limit int) ([]Job, error) {
	q := `SELECT ` + jobColumns + ` FROM overview_jobs WHERE account_id = $1 AND ($2 = '' OR status = $2)`
	args := []any{account, status, limit}
	if after != nil {
		q += ` AND (created_at, id) < ($4, $5)`
		args = append(args, after.CreatedAt, after.ID)
	}
	out := []Job{}
	if err := s.db.SelectContext(ctx, &out, q+` ORDER BY created_at DESC, id DESC LIMIT $3`, args...); err != nil {
		return nil, fmt.Errorf("list jobs: %w", err)
	}
	return out, nil
}

// StartJobs marks the queued jobs of a visit running.
func (s *DB) StartJobs(ctx context.Context, key string) error {
	_, err := s.db.ExecContext(ctx, `UPDATE overview_jobs SET status = 'running', started_at = clock_timestamp()
		WHERE task_key = $1 AND status = 'queued'`, key)
	if err != nil {
		return fmt.Errorf("start jobs: %w", err)
	}
	return nil
}

// JobEnd is how the visit of a key ended: a result, or a failure.
type JobEnd struct {
	Result  json.RawMessage // a kisa.Result; nil for a failure
	Failure string
	Part    string
}

// FinishJobs ends every open job of key with end and returns them.
func (s *DB) FinishJobs(ctx context.Context, key string, end JobEnd) ([]Job, error) {
	status := JobDone
	if len(end.Result) == 0 {
		status = JobFailed
	}
	out := []Job{}
	err := s.db.SelectContext(ctx, &out, `
		UPDATE overview_jobs SET status = $2, result = $3, failure = NULLIF($4, ''), failed_part = NULLIF($5, ''),
			started_at = COALESCE(started_at, clock_timestamp()), finished_at = clock_timestamp()
		WHERE task_key = $1 AND status IN ('queued', 'running')
		RETURNING `+jobColumns, key, status, nullJSON(end.Result), end.Failure, end.Part)
	if err != nil {
		return nil, fmt.Errorf("finish jobs: %w", err)
	}
	return out, nil
}

// EndBatches marks done those of the batches whose jobs have all ended
// and were not marked before, and returns them: each batch is returned
// once, however many callers race.
func (s *DB) EndBatches(ctx context.Context, ids []uuid.UUID) ([]Batch, error) {
	out := []Batch{}
	if len(ids) == 0 {
		return out, nil
	}
	err := s.db.SelectContext(ctx, &out, `
		UPDATE overview_batches b SET done_at = clock_timestamp()
		WHERE b.id = ANY($1::uuid[]) AND b.done_at IS NULL AND NOT EXISTS (
			SELECT 1 FROM overview_jobs j WHERE j.batch_id = b.id AND j.status IN ('queued', 'running'))
		RETURNING `+batchColumns, uuidStrings(ids))
	if err != nil {
		return nil, fmt.Errorf("end batches: %w", err)
	}
	return out, nil
}

// Batch returns one of the account's batches and its jobs (oldest
// first), or a kisa.NotFound failure.
func (s *DB) Batch(ctx context.Context, account, id uuid.UUID) (Batch, []Job, error) {
	var b Batch
	err := s.db.GetContext(ctx, &b, `SELECT `+batchColumns+` FROM overview_batches WHERE id = $1 AND account_id = $2`, id, account)
	if err := notFound(err, kisa.PartBatch, "get batch"); err != nil {
		return b, nil, err
	}
	jobs := []Job{}
	err = s.db.SelectContext(ctx, &jobs, `SELECT `+jobColumns+` FROM overview_jobs WHERE batch_id = $1
		ORDER BY created_at, id`, id)
	if err != nil {
		return b, nil, fmt.Errorf("batch jobs: %w", err)
	}
	return b, jobs, nil
}

// RecordJobDelivery records one webhook attempt of a job: the answer's
// status (nil when none came) and whether it was delivered.
func (s *DB) RecordJobDelivery(ctx context.Context, id uuid.UUID, status *int, delivered bool) error {
	return s.recordDelivery(ctx, "overview_jobs", id, status, delivered)
}

// RecordBatchDelivery is RecordJobDelivery for a batch's webhook.
func (s *DB) RecordBatchDelivery(ctx context.Context, id uuid.UUID, status *int, delivered bool) error {
	return s.recordDelivery(ctx, "overview_batches", id, status, delivered)
}

func (s *DB) recordDelivery(ctx context.Context, table string, id uuid.UUID, status *int, delivered bool) error {
	_, err := s.db.ExecContext(ctx, `UPDATE `+table+` SET webhook_attempts = webhook_attempts + 1,
		webhook_last_status = $2, webhook_delivered_at = CASE WHEN $3 THEN clock_timestamp() ELSE webhook_delivered_at END
		WHERE id = $1`, id, status, delivered)
	if err != nil {
		return fmt.Errorf("record delivery: %w", err)
	}
	return nil
}

// JobByID returns a job whatever its account, for the service's own use
// (webhook delivery), or a kisa.NotFound failure.
func (s *DB) JobByID(ctx context.Context, id uuid.UUID) (Job, error) {
	var j Job
	err := s.db.GetContext(ctx, &j, `SELECT `+jobColumns+` FROM overview_jobs WHERE id = $1`, id)
	return j, notFound(err, kisa.PartJob, "get job")
}

// BatchByID returns a batch and its jobs whatever its account, for the
// service's own use, or a kisa.NotFound failure.
func (s *DB) BatchByID(ctx context.Context, id uuid.UUID) (Batch, []Job, error) {
	var account uuid.UUID
	err := s.db.GetContext(ctx, &account, `SELECT account_id FROM overview_batches WHERE id = $1`, id)
	if err := notFound(err, kisa.PartBatch, "get batch"); err != nil {
		return Batch{}, nil, err
	}
	return s.Batch(ctx, account, id)
}

// OpenJob is one visit that open jobs wait for: its key and the request
// of one of them.
type OpenJob struct {
	Key     string          `db:"task_key"`
	Request json.RawMessage `db:"request"`
}

// StaleJobs returns the visits of jobs still open that were created
// before cutoff, one per key.
func (s *DB) StaleJobs(ctx context.Context, cutoff time.Time) ([]OpenJob, error) {
	out := []OpenJob{}
	err := s.db.SelectContext(ctx, &out, `
		SELECT DISTINCT ON (task_key) task_key, request FROM overview_jobs
		WHERE status IN ('queued', 'running') AND created_at < $1 ORDER BY task_key, created_at LIMIT 1000`, cutoff)
	if err != nil {
		return nil, fmt.Errorf("stale jobs: %w", err)
	}
	return out, nil
}

// DeleteJobsBefore removes the jobs created before cutoff, and the
// batches left without jobs; it returns how many jobs it removed.
func (s *DB) DeleteJobsBefore(ctx context.Context, cutoff time.Time) (int64, error) {
	res, err := s.db.ExecContext(ctx, `DELETE FROM overview_jobs WHERE created_at < $1`, cutoff)
	if err != nil {
		return 0, fmt.Errorf("delete jobs: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("delete jobs: %w", err)
	}
	_, err = s.db.ExecContext(ctx, `DELETE FROM overview_batches b WHERE b.created_at < $1
		AND NOT EXISTS (SELECT 1 FROM overview_jobs j WHERE j.batch_id = b.id)`, cutoff)
	if err != nil {
		return n, fmt.Errorf("delete batches: %w", err)
	}
	return n, nil
}

func uuidStrings(ids []uuid.UUID) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = id.String()
	}
	return out
}
