-- Brand visibility in monitors (issue 34): a monitor's brands, every
-- version of them (a reading is measured against the brands of its
-- time), each reading's figures per brand, and samples (several readings
-- of a target per run).

-- +goose Up
ALTER TABLE monitors
    ADD COLUMN brands        jsonb   NOT NULL DEFAULT '[]',  -- []monitor.Brand, the current version
    ADD COLUMN brand_version integer NOT NULL DEFAULT 0;     -- 0: never had brands

-- Every version of a monitor's brands, from 1; the monitor's current
-- one is monitors.brand_version.
CREATE TABLE monitor_brand_sets (
    monitor_id uuid        NOT NULL REFERENCES monitors (id) ON DELETE CASCADE,
    version    integer     NOT NULL,
    brands     jsonb       NOT NULL,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (monitor_id, version)
);

ALTER TABLE monitor_targets
    ADD COLUMN samples smallint NOT NULL DEFAULT 1 CHECK (samples BETWEEN 1 AND 5);

-- A reading's brand figures, one array element per brand of its version
-- (in that version's order), so that aggregates read them without
-- parsing: mentions in the answer's text, the first mention's rank among
-- the brands it names (0: not named), the first citation's position
-- (0: not cited). cited_domains feed GET .../sources. brand_detail holds per brand the citation positions
-- and the byte range of the first mention's sentence in text
-- ({"<index>":{"c":[...],"p":[start,end]}}, only brands with either).
ALTER TABLE monitor_readings
    ADD COLUMN sample         smallint NOT NULL DEFAULT 1,
    ADD COLUMN brand_version  integer,
    ADD COLUMN brand_mentions smallint[],
    ADD COLUMN brand_ranks    smallint[],
    ADD COLUMN brand_cited    smallint[],
    ADD COLUMN brand_detail   jsonb,
    ADD COLUMN cited_domains  text[];          -- the registrable domains its sources and citations are on, once each
ALTER TABLE monitor_readings DROP CONSTRAINT monitor_readings_run_id_target_id_key,
    ADD CONSTRAINT monitor_readings_run_target_sample_key UNIQUE (run_id, target_id, sample);

-- +goose Down
ALTER TABLE monitor_readings DROP CONSTRAINT monitor_readings_run_target_sample_key;
DELETE FROM monitor_readings WHERE sample > 1;
ALTER TABLE monitor_readings ADD CONSTRAINT monitor_readings_run_id_target_id_key UNIQUE (run_id, target_id),
    DROP COLUMN cited_domains, DROP COLUMN brand_detail, DROP COLUMN brand_cited, DROP COLUMN brand_ranks, DROP COLUMN brand_mentions,
    DROP COLUMN brand_version, DROP COLUMN sample;
ALTER TABLE monitor_targets DROP COLUMN samples;
DROP TABLE monitor_brand_sets;
ALTER TABLE monitors DROP COLUMN brand_version, DROP COLUMN brands;
