package main

import (
	"context"
	"strings"
	"testing"
)

// TestAdminWebhookSecret: made on first use, the same on the next call,
// replaced by --rotate, stored encrypted (never in clear).
func TestAdminWebhookSecret(t *testing.T) {
	e := newCLIEnv(t)
	acc := e.newCLIAccount(t, true)
	first := e.ok(t, "", "account", "webhook-secret", "--account", acc.String())["secret"].(string)
	if !strings.HasPrefix(first, "whsec_") || len(first) < 40 {
		t.Fatalf("secret = %q, want whsec_ and 32 random bytes", first)
	}
	if again := e.ok(t, "", "account", "webhook-secret", "--account", acc.String())["secret"]; again != first {
		t.Errorf("second call = %q, want the same secret %q", again, first)
	}
	rotated := e.ok(t, "", "account", "webhook-secret", "--account", acc.String(), "--rotate")["secret"]
	if rotated == first {
		t.Error("--rotate kept the secret")
	}
	if got, err := e.secrets.WebhookSecret(context.Background(), acc, false); err != nil || got != rotated {
		t.Errorf("stored secret = %q (%v), want the rotated %q", got, err, rotated)
	}
	if n := countRows(t, e.db, `SELECT count(*) FROM webhook_secrets WHERE account_id = $1 AND position($2::bytea in secret_enc) = 0`,
		acc, []byte(rotated.(string))); n != 1 {
		t.Error("the secret is stored in clear")
	}
	if _, _, err := cliRun(t, e.getenv, "", "admin", "account", "webhook-secret"); err == nil || !strings.Contains(err.Error(), "--account is required") {
		t.Errorf("without --account: %v", err)
	}
}
