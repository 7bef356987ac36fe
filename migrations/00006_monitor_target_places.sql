-- Monitor targets take the overview request's device and location
-- (issue 22): a target is read as that device in that place, and both
-- are part of its identity (monitor_targets.identity, made by the
-- monitor package; a desktop target for the whole country keeps the
-- identity it had before).

-- +goose Up
ALTER TABLE monitor_targets
    ADD COLUMN device   text  NOT NULL DEFAULT 'desktop' CHECK (device IN ('desktop', 'mobile')),
    ADD COLUMN location jsonb;                 -- geo.Location as JSON (a name or {latitude, longitude}); NULL: the whole country

-- +goose Down
ALTER TABLE monitor_targets DROP COLUMN location, DROP COLUMN device;
