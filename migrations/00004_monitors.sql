-- Monitors (issue 24): scheduled readings of a list of targets (a surface
-- with its query, country and language), every reading kept, the change
-- events between a target's successive readings, and the runs that made
-- them.

-- +goose Up
CREATE TABLE monitors (
    id                   uuid        PRIMARY KEY,
    account_id           uuid        NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    name                 text        NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
    schedule             jsonb       NOT NULL,   -- monitor.Schedule as given
    cron                 text        NOT NULL,   -- the schedule as a UTC cron spec
    watch_domains        text[]      NOT NULL DEFAULT '{}',
    webhook_url          text,
    paused               boolean     NOT NULL DEFAULT false,
    created_at           timestamptz NOT NULL DEFAULT clock_timestamp(),
    updated_at           timestamptz NOT NULL DEFAULT clock_timestamp()
);
-- The account's monitors, newest first, by cursor.
CREATE INDEX monitors_account_created_idx ON monitors (account_id, created_at DESC, id DESC);
-- The scheduler reads the active ones every SyncInterval.
CREATE INDEX monitors_active_idx ON monitors (id) WHERE NOT paused;

CREATE TABLE monitor_targets (
    id            uuid        PRIMARY KEY,
    monitor_id    uuid        NOT NULL REFERENCES monitors (id) ON DELETE CASCADE,
    position      integer     NOT NULL,        -- order given
    surface       text        NOT NULL,
    query         text        NOT NULL,
    country_code  text        NOT NULL,
    language_code text        NOT NULL,
    identity      text        NOT NULL,        -- surface, folded query, country, language: kept across edits
    created_at    timestamptz NOT NULL DEFAULT clock_timestamp(),
    UNIQUE (monitor_id, identity)
);
CREATE INDEX monitor_targets_monitor_idx ON monitor_targets (monitor_id, position);

CREATE TABLE monitor_runs (
    id                   uuid        PRIMARY KEY,
    monitor_id           uuid        NOT NULL REFERENCES monitors (id) ON DELETE CASCADE,
    account_id           uuid        NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    slot                 timestamptz NOT NULL,   -- the scheduled time (or the request's, for run now)
    trigger              text        NOT NULL CHECK (trigger IN ('schedule', 'manual')),
    status               text        NOT NULL CHECK (status IN ('running', 'done', 'skipped')),
    skip_reason          text,
    targets              integer     NOT NULL DEFAULT 0,
    webhook_url          text,
    webhook_attempts     integer     NOT NULL DEFAULT 0,
    webhook_last_status  integer,
    webhook_delivered_at timestamptz,
    started_at           timestamptz NOT NULL DEFAULT clock_timestamp(),
    finished_at          timestamptz,
    -- A slot runs once, however many schedulers enqueued it.
    UNIQUE (monitor_id, slot)
);
CREATE INDEX monitor_runs_monitor_started_idx ON monitor_runs (monitor_id, started_at DESC, id DESC);
-- Visits per day and account; retention by age.
CREATE INDEX monitor_runs_account_started_idx ON monitor_runs (account_id, started_at);

CREATE TABLE monitor_readings (
    id            uuid        PRIMARY KEY,
    run_id        uuid        NOT NULL REFERENCES monitor_runs (id) ON DELETE CASCADE,
    monitor_id    uuid        NOT NULL REFERENCES monitors (id) ON DELETE CASCADE,
    target_id     uuid        NOT NULL REFERENCES monitor_targets (id) ON DELETE CASCADE,
    status        text        NOT NULL CHECK (status IN ('pending', 'done', 'failed')),
    attempts      integer     NOT NULL DEFAULT 0,
    failure       text,                        -- kisa.Failure of the last failed attempt
    failed_part   text,
    has_overview  boolean,
    complete      boolean,
    text          text,
    sources       jsonb,                       -- []kisa.Source, in the panel's order
    citations     jsonb,                       -- []kisa.Citation
    screenshots   jsonb,                       -- object keys by name
    taken_at      timestamptz,
    changes       integer     NOT NULL DEFAULT 0,
    created_at    timestamptz NOT NULL DEFAULT clock_timestamp(),
    finished_at   timestamptz,
    UNIQUE (run_id, target_id)
);
-- A target's history, and its previous successful reading.
CREATE INDEX monitor_readings_target_idx ON monitor_readings (target_id, taken_at DESC) WHERE status = 'done';
-- A run's open readings (is it over?).
CREATE INDEX monitor_readings_run_idx ON monitor_readings (run_id, status);
CREATE INDEX monitor_readings_monitor_taken_idx ON monitor_readings (monitor_id, taken_at) WHERE status = 'done';

CREATE TABLE monitor_changes (
    id          uuid        PRIMARY KEY,
    monitor_id  uuid        NOT NULL REFERENCES monitors (id) ON DELETE CASCADE,
    run_id      uuid        NOT NULL REFERENCES monitor_runs (id) ON DELETE CASCADE,
    target_id   uuid        NOT NULL REFERENCES monitor_targets (id) ON DELETE CASCADE,
    reading_id  uuid        NOT NULL REFERENCES monitor_readings (id) ON DELETE CASCADE,
    kind        text        NOT NULL,
    detail      jsonb       NOT NULL DEFAULT '{}',
    created_at  timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX monitor_changes_monitor_created_idx ON monitor_changes (monitor_id, created_at, id);
CREATE INDEX monitor_changes_run_idx ON monitor_changes (run_id);

-- +goose Down
DROP TABLE monitor_changes;
DROP TABLE monitor_readings;
DROP TABLE monitor_runs;
DROP TABLE monitor_targets;
DROP TABLE monitors;
