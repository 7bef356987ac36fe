package api

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"
	"golang.org/x/sync/singleflight"

	"github.com/kisa-dev/kisa/apikey"
	"github.com/kisa-dev/kisa/storage"
)

// Principal is the authenticated caller: an account acting through a key.
type Principal struct {
	AccountID uuid.UUID
	KeyID     uuid.UUID
	Scopes    []string
	// LimitAI and LimitOther are the account's budget overrides; nil
	// keeps the configured default.
	LimitAI, LimitOther *int
}

type principalKey struct{}

func principalFrom(ctx context.Context) (Principal, bool) {
	p, ok := ctx.Value(principalKey{}).(Principal)
	return p, ok
}

// mustPrincipal returns the caller of an authenticated route.
func mustPrincipal(c *gin.Context) Principal {
	p, _ := principalFrom(c.Request.Context())
	return p
}

// authenticate checks the bearer key (spec section 5) and puts the
// principal into the request context.
func (s *Server) authenticate(c *gin.Context) {
	p, err := s.principal(c)
	if err != nil {
		s.writeError(c, err)
		return
	}
	c.Request = c.Request.WithContext(context.WithValue(c.Request.Context(), principalKey{}, p))
	c.Next()
}

// errInvalidKey answers a key that does not exist, does not match, or was
// revoked: the client cannot tell which.
var errInvalidKey = &Error{Code: CodeUnauthorized, Message: "invalid API key"}

func (s *Server) principal(c *gin.Context) (Principal, error) {
	header := c.GetHeader("Authorization")
	if header == "" {
		return Principal{}, Errorf(CodeUnauthorized, "authorization header is missing")
	}
	scheme, token, _ := strings.Cut(header, " ")
	if !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(token) == "" {
		return Principal{}, Errorf(CodeUnauthorized, "authorization header must be \"Bearer <API key>\"")
	}
	lookup, secret, ok := apikey.Parse(s.opts.KeyPrefix, strings.TrimSpace(token))
	if !ok {
		return Principal{}, errInvalidKey
	}
	key, err := s.keys.get(c.Request.Context(), lookup, s.loadKey)
	if errors.Is(err, storage.ErrNotFound) {
		return Principal{}, errInvalidKey
	}
	if err != nil {
		return Principal{}, err
	}
	if !apikey.Matches(secret, key.SecretHash) || key.RevokedAt != nil {
		return Principal{}, errInvalidKey
	}
	if !key.TwoFactorEnabled {
		return Principal{}, &Error{
			Code:    CodeForbidden,
			Message: "two-factor authentication is required to use the API: enable 2FA in the dashboard",
			Docs:    s.opts.DocsURL + "/errors#2fa-required",
		}
	}
	return Principal{AccountID: key.AccountID, KeyID: key.ID, Scopes: key.Scopes(),
		LimitAI: key.AI, LimitOther: key.Other}, nil
}

// loadKey reads a key from PostgreSQL and records its use.
func (s *Server) loadKey(ctx context.Context, lookup string) (storage.APIKey, error) {
	key, err := s.opts.DB.APIKeyByLookup(ctx, lookup)
	if err != nil {
		return key, err
	}
	if err := s.opts.DB.TouchAPIKey(ctx, key.ID, s.opts.Now()); err != nil {
		s.log.WarnContext(ctx, "record key use", "error", err)
	}
	return key, nil
}

// require answers 403 unless the caller's key has scope.
func (s *Server) require(scope string) gin.HandlerFunc {
	return func(c *gin.Context) {
		if !slices.Contains(mustPrincipal(c).Scopes, scope) {
			s.writeError(c, Errorf(CodeForbidden, "this API key lacks the scope %q", scope))
			return
		}
		c.Next()
	}
}

// keyCache keeps keys read from PostgreSQL for ttl, so that a request need
// not hit the database; a revoked key (or an account whose 2FA was turned
// off) is therefore refused at most ttl after the change.
type keyCache struct {
	ttl   time.Duration
	now   func() time.Time
	loads singleflight.Group // by lookup: one read of a key at a time

	mu      sync.Mutex
	entries map[string]cachedKey
}

type cachedKey struct {
	key     storage.APIKey
	expires time.Time
}

const keyCacheMax = 10000

func newKeyCache(ttl time.Duration, now func() time.Time) *keyCache {
	return &keyCache{ttl: ttl, now: now, entries: map[string]cachedKey{}}
}

// keyLoadTimeout bounds one read of a key, which every request waiting
// for that key shares.
const keyLoadTimeout = 5 * time.Second

// get returns the cached key for lookup, or loads and caches it. Lookups
// that fail are not cached. Requests that miss at once share one load
// (when the entry of a busy key expires, its requests would otherwise
// each read it and record its use, queueing on the key's row); the load
// is not cut short when the request that started it leaves, and a
// request that leaves stops waiting with its context's error.
func (k *keyCache) get(ctx context.Context, lookup string, load func(context.Context, string) (storage.APIKey, error)) (storage.APIKey, error) {
	k.mu.Lock()
	e, ok := k.entries[lookup]
	k.mu.Unlock()
	if ok && k.now().Before(e.expires) {
		return e.key, nil
	}
	done := k.loads.DoChan(lookup, func() (any, error) {
		lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), keyLoadTimeout)
		defer cancel()
		key, err := load(lctx, lookup)
		if err == nil && k.ttl > 0 {
			k.put(lookup, key)
		}
		return key, err
	})
	select {
	case r := <-done:
		key, _ := r.Val.(storage.APIKey)
		return key, r.Err
	case <-ctx.Done():
		return storage.APIKey{}, ctx.Err()
	}
}

// put caches key for ttl, making room by dropping expired entries; when
// the cache is full of live ones, key is not kept.
func (k *keyCache) put(lookup string, key storage.APIKey) {
	now := k.now()
	k.mu.Lock()
	defer k.mu.Unlock()
	if len(k.entries) >= keyCacheMax {
		for l, e := range k.entries {
			if !now.Before(e.expires) {
				delete(k.entries, l)
			}
		}
	}
	if len(k.entries) < keyCacheMax {
		k.entries[lookup] = cachedKey{key: key, expires: now.Add(k.ttl)}
	}
}
