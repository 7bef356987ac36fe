-- Async AI overview jobs (issue 8): one row per job, tied to its account,
-- batches of jobs, and each account's webhook signing secret.

-- +goose Up
CREATE TABLE overview_batches (
    id                   uuid        PRIMARY KEY,
    account_id           uuid        NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    webhook_url          text,
    webhook_attempts     integer     NOT NULL DEFAULT 0,
    webhook_last_status  integer,
    webhook_delivered_at timestamptz,
    done_at              timestamptz,            -- set once, when its last job ended
    created_at           timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX overview_batches_account_idx ON overview_batches (account_id);

CREATE TABLE overview_jobs (
    id                   uuid        PRIMARY KEY,
    account_id           uuid        NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    batch_id             uuid        REFERENCES overview_batches (id) ON DELETE CASCADE,
    task_key             text        NOT NULL,   -- cache key = asynq task id of the visit
    request              jsonb       NOT NULL,   -- the request as understood
    status               text        NOT NULL CHECK (status IN ('queued', 'running', 'done', 'failed')),
    result               jsonb,                  -- kisa.Result when done
    is_cached            boolean     NOT NULL DEFAULT false,
    cache_expires_in     integer,
    failure              text,                   -- kisa.Failure when failed
    failed_part          text,
    webhook_url          text,
    webhook_attempts     integer     NOT NULL DEFAULT 0,
    webhook_last_status  integer,
    webhook_delivered_at timestamptz,
    created_at           timestamptz NOT NULL DEFAULT clock_timestamp(),
    started_at           timestamptz,
    finished_at          timestamptz
);
-- The account's job log, newest first, by cursor.
CREATE INDEX overview_jobs_account_created_idx ON overview_jobs (account_id, created_at DESC, id DESC);
-- The worker ends the open jobs of a visit by its key; the sweep finds old open jobs.
CREATE INDEX overview_jobs_open_key_idx ON overview_jobs (task_key) WHERE status IN ('queued', 'running');
CREATE INDEX overview_jobs_batch_idx ON overview_jobs (batch_id) WHERE batch_id IS NOT NULL;
-- Retention removes jobs by age.
CREATE INDEX overview_jobs_created_idx ON overview_jobs (created_at);

CREATE TABLE webhook_secrets (
    account_id uuid        PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
    secret_enc bytea       NOT NULL,             -- nonce || AES-256-GCM ciphertext
    created_at timestamptz NOT NULL DEFAULT now()
);

-- +goose Down
DROP TABLE webhook_secrets;
DROP TABLE overview_jobs;
DROP TABLE overview_batches;
