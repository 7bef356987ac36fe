-- Observations (issue 26): one row per request an account made, and one
-- per browser visit (an attempt of a task), each partitioned by day
-- (UTC) so that retention drops whole partitions instead of deleting
-- rows. Partitions are made ahead by the periodic observations task and
-- by the writer itself when a row finds none (storage/observations.go);
-- this migration makes today's and the next two days'.
--
-- Usage (GET /v1/usage) is aggregated from these rows when read: one
-- write path, no counter to keep in step, and a day's partition is what
-- a usage query scans. Usage therefore reaches back as far as the
-- retention (KISA_OBSERVATION_RETENTION).

-- +goose Up
CREATE TABLE observations (
    id            uuid        NOT NULL,
    at            timestamptz NOT NULL,             -- when the request arrived
    account_id    uuid        NOT NULL,             -- no foreign key: rows go in by COPY, and go with their day
    key_id        uuid        NOT NULL,
    client_ip     text        NOT NULL,             -- as seen through KISA_TRUSTED_PROXIES
    user_agent    text        NOT NULL,
    method        text        NOT NULL,
    route         text        NOT NULL,             -- route template, e.g. /v1/integrations/:id
    path          text        NOT NULL,             -- without the query string
    status        smallint    NOT NULL,
    duration_us   bigint      NOT NULL,
    request_id    text        NOT NULL,
    surface       text        NOT NULL,             -- overview, overview_async, batch, completions, read
    items         integer     NOT NULL DEFAULT 0,   -- browser results asked for (a batch: its requests)
    cache_hits    integer     NOT NULL DEFAULT 0,
    joins         integer     NOT NULL DEFAULT 0,   -- items that joined a visit already in flight
    runs          text[]      NOT NULL DEFAULT '{}',-- the task runs its items started (jobs.OverviewPayload.Run)
    joined_runs   text[]      NOT NULL DEFAULT '{}',-- the runs in flight its items joined
    ai_spent      integer     NOT NULL DEFAULT 0,   -- AI budget spent
    failure       text,                             -- kisa.Failure of an error answer
    failed_part   text,
    queries       jsonb,                            -- only for accounts that store queries
    PRIMARY KEY (at, id)
) PARTITION BY RANGE (at);
-- The account's list, newest first, by cursor; usage by day.
CREATE INDEX observations_account_at_idx ON observations (account_id, at DESC, id DESC);

CREATE TABLE observation_visits (
    run           text        NOT NULL,             -- jobs.OverviewPayload.Run
    task_key      text        NOT NULL,
    attempt       integer     NOT NULL,             -- 0 for the first try
    started_at    timestamptz NOT NULL,
    duration_us   bigint      NOT NULL,
    steps         jsonb       NOT NULL,             -- step name: milliseconds
    proxy_country text,                             -- the proxy's country ("*" for the catch-all); NULL: direct
    failure       text,
    failed_part   text
) PARTITION BY RANGE (started_at);
CREATE INDEX observation_visits_run_idx ON observation_visits (run);

-- Accounts opt in to keeping the queries of their browser requests.
ALTER TABLE accounts ADD COLUMN store_queries boolean NOT NULL DEFAULT false;

-- +goose StatementBegin
DO $$
DECLARE d date;
BEGIN
    FOR i IN 0..2 LOOP
        d := (now() AT TIME ZONE 'UTC')::date + i;
        EXECUTE format('CREATE TABLE IF NOT EXISTS %I PARTITION OF observations FOR VALUES FROM (%L) TO (%L)',
            'observations_' || to_char(d, 'YYYYMMDD'), d::timestamp AT TIME ZONE 'UTC', (d + 1)::timestamp AT TIME ZONE 'UTC');
        EXECUTE format('CREATE TABLE IF NOT EXISTS %I PARTITION OF observation_visits FOR VALUES FROM (%L) TO (%L)',
            'observation_visits_' || to_char(d, 'YYYYMMDD'), d::timestamp AT TIME ZONE 'UTC', (d + 1)::timestamp AT TIME ZONE 'UTC');
    END LOOP;
END $$;
-- +goose StatementEnd

-- +goose Down
ALTER TABLE accounts DROP COLUMN store_queries;
DROP TABLE observation_visits;
DROP TABLE observations;
