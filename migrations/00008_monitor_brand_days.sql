-- A daily roll-up of the brand figures (issue 34: GET .../brands of a
-- monitor of 1,000 targets over 90 days must not sum 90,000 readings on
-- every request). A closed UTC day of a monitor, once asked for, is summed
-- once per target group (surface, country, device, language) and version
-- of the brands; storage.BrandAggregates then reads those sums for whole
-- closed days and the readings themselves for the rest of the span.
-- Readings that change a rolled-up day (a reading finished late, a target
-- removed with its history, runs expired) delete that day's sums, which
-- the next request makes again.

-- +goose Up
-- The days of a monitor whose sums are in monitor_brand_day_sums (a day
-- without measured readings has a row here and none there).
CREATE TABLE monitor_brand_days (
    monitor_id uuid NOT NULL REFERENCES monitors (id) ON DELETE CASCADE,
    day        date NOT NULL,                  -- UTC
    PRIMARY KEY (monitor_id, day)
);

-- The sums of one day's successful measured readings of one target
-- group and brand version; each array has an element per brand of the
-- version (at least one), as storage.BrandAggregate names them.
CREATE TABLE monitor_brand_day_sums (
    monitor_id    uuid      NOT NULL,
    day           date      NOT NULL,
    surface       text      NOT NULL,
    country_code  text      NOT NULL,
    device        text      NOT NULL,
    language_code text      NOT NULL,
    brand_version integer   NOT NULL,
    readings      integer   NOT NULL,
    answers       integer   NOT NULL,
    mentioned     integer[] NOT NULL,
    mentions      integer[] NOT NULL,
    ranked        integer[] NOT NULL,
    rank_sum      integer[] NOT NULL,
    cited         integer[] NOT NULL,
    position_sum  integer[] NOT NULL,
    FOREIGN KEY (monitor_id, day) REFERENCES monitor_brand_days (monitor_id, day) ON DELETE CASCADE
);
CREATE INDEX monitor_brand_day_sums_day_idx ON monitor_brand_day_sums (monitor_id, day);

-- +goose Down
DROP TABLE monitor_brand_day_sums;
DROP TABLE monitor_brand_days;
