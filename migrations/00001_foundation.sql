-- Accounts, their API keys, and the three read-only resources of the
-- foundation: clusters, integrations and (encrypted) secrets.

-- +goose Up
CREATE TABLE accounts (
    id                 uuid        PRIMARY KEY,
    name               text        NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
    two_factor_enabled boolean     NOT NULL DEFAULT false,
    created_at         timestamptz NOT NULL DEFAULT now(),
    updated_at         timestamptz NOT NULL DEFAULT now()
);
-- admin demo finds its account by name.
CREATE INDEX accounts_name_idx ON accounts (name);

CREATE TABLE api_keys (
    id           uuid        PRIMARY KEY,
    account_id   uuid        NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    lookup       text        NOT NULL,           -- public part of the key, shown in its body
    secret_hash  bytea       NOT NULL CHECK (length(secret_hash) = 32), -- SHA-256 of the secret part
    scopes       text[]      NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    last_used_at timestamptz,
    revoked_at   timestamptz
);
-- Every authenticated request looks its key up by the public part.
CREATE UNIQUE INDEX api_keys_lookup_idx ON api_keys (lookup);
CREATE INDEX api_keys_account_idx ON api_keys (account_id);

CREATE TABLE clusters (
    id         uuid        PRIMARY KEY,
    account_id uuid        NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    name       text        NOT NULL,
    type       text        NOT NULL,
    metadata   jsonb       NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(metadata) = 'object'),
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);
-- GET /v1/knowledgebase lists an account's clusters oldest first.
CREATE INDEX clusters_account_created_idx ON clusters (account_id, created_at, id);

CREATE TABLE integrations (
    id         uuid        PRIMARY KEY,
    account_id uuid        NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    provider   text        NOT NULL,
    metadata   jsonb       NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(metadata) = 'object'),
    created_at timestamptz NOT NULL DEFAULT now()
);
-- GET /v1/integrations lists; GET /v1/integrations/{id} uses the primary key
-- and checks account_id.
CREATE INDEX integrations_account_created_idx ON integrations (account_id, created_at, id);

CREATE TABLE secrets (
    id         uuid        PRIMARY KEY,
    account_id uuid        NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    name       text        NOT NULL,
    value_enc  bytea       NOT NULL,             -- nonce || AES-256-GCM ciphertext
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX secrets_account_idx ON secrets (account_id);

-- +goose Down
DROP TABLE secrets;
DROP TABLE integrations;
DROP TABLE clusters;
DROP TABLE api_keys;
DROP TABLE accounts;
