package storage_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/storage"
	"github.com/kisa-dev/kisa/testenv"
)

// newAccount creates an account with a name of the test's own.
func newAccount(tb testing.TB, db *storage.DB, twoFactor bool) storage.Account {
	tb.Helper()
	acc, err := db.CreateAccount(context.Background(), "storage-test-"+testenv.RandomHex(6), twoFactor)
	if err != nil {
		tb.Fatal(err)
	}
	return acc
}

// sameJSON fails unless got is the JSON value want (spacing and key order aside).
func sameJSON(tb testing.TB, want string, got []byte) {
	tb.Helper()
	var w, g any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		tb.Fatal(err)
	}
	if err := json.Unmarshal(got, &g); err != nil {
		tb.Fatalf("stored metadata is not JSON: %v: %s", err, got)
	}
	if diff := cmp.Diff(w, g); diff != "" {
		tb.Errorf("metadata (-want +got):\n%s", diff)
	}
}

func TestAccounts(t *testing.T) {
	db := testenv.Postgres(t)
	ctx := context.Background()
	name := "storage-test-" + testenv.RandomHex(6)
	first, err := db.CreateAccount(ctx, name, false)
	if err != nil {
		t.Fatal(err)
	}
	if first.Name != name || first.TwoFactorEnabled || first.ID == uuid.Nil || first.CreatedAt.IsZero() {
		t.Errorf("CreateAccount = %+v", first)
	}
	if _, err := db.CreateAccount(ctx, name, true); err != nil {
		t.Fatal(err)
	}
	got, err := db.AccountByName(ctx, name)
	if err != nil || got.ID != first.ID {
		t.Errorf("AccountByName = %v, %v; want the oldest, %v", got.ID, err, first.ID)
	}
	if _, err := db.AccountByName(ctx, "storage-test-none-"+testenv.RandomHex(6)); !errors.Is(err, kisa.NotFound) {
		t.Errorf("AccountByName(unknown) error = %v, want NotFound", err)
	}
	if _, err := db.CreateAccount(ctx, "", false); err == nil {
		t.Errorf("CreateAccount with an empty name succeeded")
	}

	if err := db.SetTwoFactor(ctx, first.ID, true); err != nil {
		t.Fatal(err)
	}
	if got, _ := db.AccountByName(ctx, name); !got.TwoFactorEnabled {
		t.Errorf("SetTwoFactor(true) not stored")
	}
	if err := db.SetTwoFactor(ctx, uuid.New(), true); !errors.Is(err, kisa.NotFound) {
		t.Errorf("SetTwoFactor(unknown) error = %v, want NotFound", err)
	}

	tests := []struct {
		name string
		id   uuid.UUID
		want bool
	}{
		{name: "existing", id: first.ID, want: true},
		{name: "unknown", id: uuid.New()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := db.AccountExists(ctx, tt.id)
			if err != nil || got != tt.want {
				t.Errorf("AccountExists = %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

func TestClusters(t *testing.T) {
	db := testenv.Postgres(t)
	ctx := context.Background()
	a, b := newAccount(t, db, true), newAccount(t, db, true)
	empty, err := db.ListClusters(ctx, newAccount(t, db, true).ID)
	if err != nil || empty == nil || len(empty) != 0 {
		t.Errorf("ListClusters(no clusters) = %#v, %v; want an empty, non-nil list", empty, err)
	}
	meta := `{"url":"https://www.example.com","title":"Example","pullType":"entire-website","excludeFooter":true,"excludeHeader":false}`
	web, err := db.CreateCluster(ctx, a.ID, "Site", "website", json.RawMessage(meta))
	if err != nil {
		t.Fatal(err)
	}
	sitemap, err := db.CreateCluster(ctx, a.ID, "Map", "sitemap", json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.CreateCluster(ctx, b.ID, "B's", "website", json.RawMessage(`{}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := db.CreateCluster(ctx, a.ID, "Bad", "website", json.RawMessage(`[1]`)); err == nil {
		t.Errorf("CreateCluster with array metadata succeeded")
	}

	list, err := db.ListClusters(ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	var got [][3]string
	for _, c := range list {
		got = append(got, [3]string{c.ID.String(), c.Name, c.Type})
		if c.CreatedAt.IsZero() || c.UpdatedAt.IsZero() {
			t.Errorf("cluster %s lacks timestamps", c.Name)
		}
	}
	want := [][3]string{{web.String(), "Site", "website"}, {sitemap.String(), "Map", "sitemap"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("ListClusters (-want +got), oldest first, only A's:\n%s", diff)
	}
	sameJSON(t, meta, list[0].Metadata)
	sameJSON(t, `{}`, list[1].Metadata)
}

func TestIntegrations(t *testing.T) {
	db := testenv.Postgres(t)
	ctx := context.Background()
	a, b := newAccount(t, db, true), newAccount(t, db, true)
	meta := `{"id":"1082","email":"r@example.com","name":"Reports","picture":"https://example.com/p.png"}`
	looker, err := db.CreateIntegration(ctx, a.ID, "google-looker-studio", json.RawMessage(meta))
	if err != nil {
		t.Fatal(err)
	}
	slack, err := db.CreateIntegration(ctx, a.ID, "slack", json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	other, err := db.CreateIntegration(ctx, b.ID, "slack", json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	list, err := db.ListIntegrations(ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	var ids []uuid.UUID
	for _, in := range list {
		ids = append(ids, in.ID)
	}
	if diff := cmp.Diff([]uuid.UUID{looker, slack}, ids); diff != "" {
		t.Fatalf("ListIntegrations (-want +got):\n%s", diff)
	}
	sameJSON(t, meta, list[0].Metadata)

	tests := []struct {
		name    string
		account uuid.UUID
		id      uuid.UUID
		want    error
	}{
		{name: "own", account: a.ID, id: looker},
		{name: "another account's", account: a.ID, id: other, want: kisa.NotFound},
		{name: "unknown", account: a.ID, id: uuid.New(), want: kisa.NotFound},
		{name: "own, asked by another account", account: b.ID, id: looker, want: kisa.NotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, err := db.Integration(ctx, tt.account, tt.id)
			if !errors.Is(err, tt.want) || (err != nil) != (tt.want != nil) {
				t.Fatalf("Integration error = %v, want %v", err, tt.want)
			}
			if err == nil && (in.ID != tt.id || in.Provider != "google-looker-studio" || in.CreatedAt.IsZero()) {
				t.Errorf("Integration = %+v", in)
			}
		})
	}
}

func TestAPIKeys(t *testing.T) {
	db := testenv.Postgres(t)
	ctx := context.Background()
	acc := newAccount(t, db, false)
	lookup := testenv.RandomHex(8)
	hash := make([]byte, 32)
	hash[0] = 7
	id, err := db.CreateAPIKey(ctx, acc.ID, lookup, hash, []string{"secrets:read", "knowledgebase:read"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := db.APIKeyByLookup(ctx, lookup)
	if err != nil {
		t.Fatal(err)
	}
	want := storage.APIKey{ID: id, AccountID: acc.ID, SecretHash: hash, ScopeList: "secrets:read,knowledgebase:read"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("APIKeyByLookup (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"secrets:read", "knowledgebase:read"}, got.Scopes()); diff != "" {
		t.Errorf("Scopes (-want +got):\n%s", diff)
	}
	if _, err := db.CreateAPIKey(ctx, acc.ID, lookup, hash, nil); err == nil {
		t.Errorf("a second key with the same lookup was stored")
	}
	if _, err := db.APIKeyByLookup(ctx, testenv.RandomHex(8)); !errors.Is(err, kisa.NotFound) {
		t.Errorf("APIKeyByLookup(unknown) error = %v, want NotFound", err)
	}

	// The account's 2FA shows through the key.
	if err := db.SetTwoFactor(ctx, acc.ID, true); err != nil {
		t.Fatal(err)
	}
	if got, _ := db.APIKeyByLookup(ctx, lookup); !got.TwoFactorEnabled {
		t.Errorf("TwoFactorEnabled = false after SetTwoFactor(true)")
	}

	// Revoking sets the time once.
	if err := db.RevokeAPIKey(ctx, id); err != nil {
		t.Fatal(err)
	}
	revoked, _ := db.APIKeyByLookup(ctx, lookup)
	if revoked.RevokedAt == nil {
		t.Fatalf("RevokedAt not set")
	}
	first := time.Date(2025, 10, 1, 12, 0, 0, 0, time.UTC) // a revocation well before now
	if _, err := db.SQL().ExecContext(ctx, `UPDATE api_keys SET revoked_at = $2 WHERE id = $1`, id, first); err != nil {
		t.Fatal(err)
	}
	if err := db.RevokeAPIKey(ctx, id); err != nil {
		t.Fatal(err)
	}
	again, _ := db.APIKeyByLookup(ctx, lookup)
	if again.RevokedAt == nil || !again.RevokedAt.Equal(first) {
		t.Errorf("second revoke moved RevokedAt from %v to %v", first, again.RevokedAt)
	}
	if err := db.RevokeAPIKey(ctx, uuid.New()); !errors.Is(err, kisa.NotFound) {
		t.Errorf("RevokeAPIKey(unknown) error = %v, want NotFound", err)
	}

	// Touch records the last use.
	at := time.Date(2025, 10, 13, 8, 0, 0, 0, time.UTC)
	if err := db.TouchAPIKey(ctx, id, at); err != nil {
		t.Fatal(err)
	}
	var used time.Time
	if err := db.SQL().QueryRowContext(ctx, `SELECT last_used_at FROM api_keys WHERE id = $1`, id).Scan(&used); err != nil {
		t.Fatal(err)
	}
	if !used.Equal(at) {
		t.Errorf("last_used_at = %v, want %v", used, at)
	}
}

func TestAPIKeyWithoutScopes(t *testing.T) {
	db := testenv.Postgres(t)
	ctx := context.Background()
	lookup := testenv.RandomHex(8)
	if _, err := db.CreateAPIKey(ctx, newAccount(t, db, true).ID, lookup, make([]byte, 32), nil); err != nil {
		t.Fatal(err)
	}
	got, err := db.APIKeyByLookup(ctx, lookup)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{}, got.Scopes()); diff != "" {
		t.Errorf("Scopes (-want +got):\n%s", diff)
	}
}
