-- Per-account overrides of the per-key request budgets (KISA_LIMIT_AI and
-- KISA_LIMIT_OTHER, per minute); NULL keeps the configured default and 0
-- means no limit. Set with: kisa admin account set-limits.

-- +goose Up
ALTER TABLE accounts
    ADD COLUMN limit_ai    integer CHECK (limit_ai BETWEEN 0 AND 1000000000),
    ADD COLUMN limit_other integer CHECK (limit_other BETWEEN 0 AND 1000000000);

-- +goose Down
ALTER TABLE accounts DROP COLUMN limit_ai, DROP COLUMN limit_other;
