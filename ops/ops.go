// Package ops holds what operators reach on every process kind: the admin
// token check in front of /metrics and the queue dashboard, the liveness
// and readiness answers, and the Prometheus registry with the queue sizes.
package ops

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strings"
)

// AdminOnly serves next only to a request that carries token, as a bearer
// token or as the password of HTTP basic authentication (any user name,
// so that a person can open a page in a browser). Anything else is
// answered 401 with a Basic challenge. An empty token is refused by
// callers: with no token configured, the routes are not mounted.
func AdminOnly(token string, next http.Handler) http.Handler {
	want := sha256.Sum256([]byte(token))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := sha256.Sum256([]byte(presented(r)))
		if token == "" || subtle.ConstantTimeCompare(want[:], got[:]) != 1 {
			w.Header().Set("WWW-Authenticate", `Basic realm="kisa admin", charset="UTF-8"`)
			writeJSON(w, http.StatusUnauthorized, errorBody{
				Error: "the admin token is required (Authorization: Bearer <KISA_ADMIN_TOKEN>, or basic authentication with it as the password)"})
			return
		}
		next.ServeHTTP(w, r)
	})
}

// presented is the credential a request carries: its bearer token or its
// basic-authentication password; empty when there is none.
func presented(r *http.Request) string {
	if _, pass, ok := r.BasicAuth(); ok {
		return pass
	}
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if ok && strings.EqualFold(scheme, "Bearer") {
		return strings.TrimSpace(token)
	}
	return ""
}
