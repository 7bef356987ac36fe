// Package apikey makes and reads the service's API keys. A key is written
// `<prefix>_<body>`; its body is a public lookup part (16 hex characters)
// followed by a secret part (43 base64url characters, 256 random bits).
// Only the SHA-256 of the secret part is stored.
package apikey

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
)

// Scopes a key can carry; a new key gets all of them unless told otherwise.
const (
	ScopeKnowledgebaseRead = "knowledgebase:read"
	ScopeIntegrationsRead  = "integrations:read"
	ScopeSecretsRead       = "secrets:read"
	ScopeOverviewRun       = "overview:run"
	ScopeCompletionsRun    = "completions:run"
	ScopeMonitors          = "monitors"
	ScopeObservationsRead  = "observations:read"
	ScopeUsageRead         = "usage:read"
)

// AllScopes lists every scope, in a stable order.
func AllScopes() []string {
	return []string{ScopeKnowledgebaseRead, ScopeIntegrationsRead, ScopeSecretsRead, ScopeOverviewRun,
		ScopeCompletionsRun, ScopeMonitors, ScopeObservationsRead, ScopeUsageRead}
}

const (
	lookupLen = 16 // hex characters of the public part
	secretLen = 43 // base64url characters of 32 random bytes
)

// Key is a freshly made key: Plain is shown once to its owner; Lookup and
// Hash are what is stored.
type Key struct {
	Plain  string
	Lookup string
	Hash   []byte
}

// New makes a key with the given prefix. It fails only when the system's
// random source does.
func New(prefix string) (Key, error) {
	pub := make([]byte, lookupLen/2)
	sec := make([]byte, 32)
	if _, err := rand.Read(pub); err != nil {
		return Key{}, fmt.Errorf("random: %w", err)
	}
	if _, err := rand.Read(sec); err != nil {
		return Key{}, fmt.Errorf("random: %w", err)
	}
	lookup := hex.EncodeToString(pub)
	secret := base64.RawURLEncoding.EncodeToString(sec)
	return Key{Plain: prefix + "_" + lookup + secret, Lookup: lookup, Hash: Hash(secret)}, nil
}

// Parse splits a presented key into its lookup and secret parts; ok is
// false when it does not have the prefix or the shape of a key: a lookup
// part of lowercase hex and a secret part of base64url characters. It
// runs on every request, so it checks the characters rather than decoding
// them (decoding would allocate).
func Parse(prefix, token string) (lookup, secret string, ok bool) {
	body, found := strings.CutPrefix(token, prefix+"_")
	if !found || len(body) != lookupLen+secretLen {
		return "", "", false
	}
	lookup, secret = body[:lookupLen], body[lookupLen:]
	for i := 0; i < len(lookup); i++ {
		if b := lookup[i]; !('0' <= b && b <= '9' || 'a' <= b && b <= 'f') {
			return "", "", false
		}
	}
	for i := 0; i < len(secret); i++ {
		if b := secret[i]; !('A' <= b && b <= 'Z' || 'a' <= b && b <= 'z' || '0' <= b && b <= '9' || b == '-' || b == '_') {
			return "", "", false
		}
	}
	return lookup, secret, true
}

// Hash is the stored form of a secret part.
func Hash(secret string) []byte {
	h := sha256.Sum256([]byte(secret))
	return h[:]
}

// Matches compares a presented secret part with a stored hash in constant
// time. A secret part of the usual length is hashed from a copy on the
// stack, so that checking a key allocates nothing.
func Matches(secret string, hash []byte) bool {
	if len(secret) != secretLen {
		return subtle.ConstantTimeCompare(Hash(secret), hash) == 1
	}
	var b [secretLen]byte
	copy(b[:], secret)
	h := sha256.Sum256(b[:])
	return subtle.ConstantTimeCompare(h[:], hash) == 1
}

// ValidScope reports whether s is a known scope.
func ValidScope(s string) bool {
	for _, k := range AllScopes() {
		if k == s {
			return true
		}
	}
	return false
}
