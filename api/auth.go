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

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/apikey"
	"github.com/kisa-dev/kisa/observe"
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
	// StoreQueries is the account's choice to keep the queries of its
	// browser requests in its observations.
	StoreQueries bool

	limitKeys storage.LimitKeys // its budgets' Redis keys, named once per key load
}

// requestState is what the middleware learns about a request: its id,
// and once authenticate has run, its caller. requestIDs puts one into the
// request's context as the request arrives, so that the request is copied
// once for its context rather than once per middleware.
type requestState struct {
	id        string
	principal *Principal // nil until authenticated; shared, not to be changed
	trace     observe.Trace
	spentAI   bool // got past the limiter on an AI route (countAI)
}

type requestStateKey struct{}

func stateOf(ctx context.Context) *requestState {
	st, _ := ctx.Value(requestStateKey{}).(*requestState)
	return st
}

func principalFrom(ctx context.Context) (*Principal, bool) {
	if st := stateOf(ctx); st != nil && st.principal != nil {
		return st.principal, true
	}
	return nil, false
}

// mustPrincipal returns the caller of an authenticated route (an empty
// one elsewhere). It is shared by the key's requests: read it, do not
// change it.
func mustPrincipal(c *gin.Context) *Principal {
	if p, ok := principalFrom(c.Request.Context()); ok {
		return p
	}
	return &Principal{}
}

// authenticate checks the bearer key (spec section 5) and records the
// caller in the request's state.
func (s *Server) authenticate(c *gin.Context) {
	p, err := s.principal(c)
	if err != nil {
		s.writeError(c, err)
		return
	}
	if st := stateOf(c.Request.Context()); st != nil {
		st.principal = p
	} else { // not through requestIDs (a route of its own in a test, say)
		c.Request = c.Request.WithContext(context.WithValue(c.Request.Context(), requestStateKey{}, &requestState{principal: p}))
	}
	c.Next()
}

// errInvalidKey answers a key that does not exist, does not match, or was
// revoked: the client cannot tell which.
var errInvalidKey = kisa.Failf(kisa.Unauthorized, "invalid API key")

func (s *Server) principal(c *gin.Context) (*Principal, error) {
	header := c.GetHeader("Authorization")
	if header == "" {
		return nil, kisa.Failf(kisa.Unauthorized, "authorization header is missing")
	}
	scheme, token, _ := strings.Cut(header, " ")
	if !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(token) == "" {
		return nil, kisa.Failf(kisa.Unauthorized, "authorization header must be \"Bearer <API key>\"")
	}
	lookup, secret, ok := apikey.Parse(s.opts.KeyPrefix, strings.TrimSpace(token))
	if !ok {
		return nil, errInvalidKey
	}
	k, err := s.keys.get(c.Request.Context(), lookup, s.loadKey)
	if errors.Is(err, kisa.NotFound) {
		return nil, errInvalidKey
	}
	if err != nil {
		return nil, err
	}
	if !apikey.Matches(secret, k.key.SecretHash) || k.key.RevokedAt != nil {
		return nil, errInvalidKey
	}
	if !k.key.TwoFactorEnabled {
		return nil, &kisa.Error{
			Failure: kisa.Forbidden,
			Message: "two-factor authentication is required to use the API: enable 2FA in the dashboard",
			Docs:    s.opts.DocsURL + "/errors#2fa-required",
		}
	}
	return k.principal, nil
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
			s.writeError(c, kisa.Failf(kisa.Forbidden, "this API key lacks the scope %q", scope))
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
	key     *authKey
	expires time.Time
}

// authKey is a stored key and the caller it makes, built once per load
// (its scopes split, its limiter keys named) instead of on every request.
type authKey struct {
	key       storage.APIKey
	principal *Principal
}

func newAuthKey(key storage.APIKey) *authKey {
	p := &Principal{AccountID: key.AccountID, KeyID: key.ID, Scopes: key.Scopes(),
		LimitAI: key.AI, LimitOther: key.Other, StoreQueries: key.StoreQueries, limitKeys: storage.LimitKeysOf(key.ID)}
	return &authKey{key: key, principal: p}
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
func (k *keyCache) get(ctx context.Context, lookup string, load func(context.Context, string) (storage.APIKey, error)) (*authKey, error) {
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
		if err != nil {
			return nil, err
		}
		ak := newAuthKey(key)
		if k.ttl > 0 {
			k.put(lookup, ak)
		}
		return ak, nil
	})
	select {
	case r := <-done:
		if r.Err != nil {
			return nil, r.Err
		}
		return r.Val.(*authKey), nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// put caches key for ttl, making room by dropping expired entries; when
// the cache is full of live ones, key is not kept.
func (k *keyCache) put(lookup string, key *authKey) {
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
