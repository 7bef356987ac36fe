package serpfixture

import (
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
)

// The engine's opaque redirect, as real pages of August 2026 link their
// sources and citations: /goto?url=<token>, whose token names the target
// without showing it; the engine answers 302 to the target. A page of a
// query containing OpaqueQuery links every website so; its cards show
// dates (opaqueDates), and the last website's token has expired (the
// redirect answers 404), as a link may be that the visit cannot follow.

// gotoPrefix starts every token, like the real ones ("CAES...").
const gotoPrefix = "CAES"

// expiredToken is the token of a redirect that has expired.
const expiredToken = gotoPrefix + "expired"

// opaqueDates are the dates the cards of an opaque page show, in turn: a
// full date in each form met, a relative one, and none.
var opaqueDates = []string{"Aug 21, 2026", "3 days ago", "27 Aug 2026", ""}

// withOpaqueLinks returns ov with its websites behind the opaque redirect
// and their cards' dates.
func withOpaqueLinks(ov overview) overview {
	ov.Opaque = true
	ov.Dates = make([]string, len(ov.Links))
	for i := range ov.Links {
		ov.Dates[i] = opaqueDates[i%len(opaqueDates)]
	}
	return ov
}

// gotoLink is the opaque redirect to website n of links, relative to the
// page; the last one's has expired.
func gotoLink(links []link, n int) string {
	token := gotoToken(links[n].URL)
	if n == len(links)-1 {
		token = expiredToken
	}
	return "/goto?" + url.Values{"url": {token}}.Encode()
}

// gotoToken hides target in an opaque token.
func gotoToken(target string) string {
	b := []byte(target)
	for i := range b {
		b[i] ^= 0x2a
	}
	return gotoPrefix + base64.RawURLEncoding.EncodeToString(b)
}

// gotoTarget is the target gotoToken hid in token, or "".
func gotoTarget(token string) string {
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(token, gotoPrefix))
	if err != nil || !strings.HasPrefix(token, gotoPrefix) {
		return ""
	}
	for i := range b {
		b[i] ^= 0x2a
	}
	if u, err := url.Parse(string(b)); err != nil || u.Scheme != "https" || u.Host == "" {
		return ""
	}
	return string(b)
}

// handleGoto serves GET /goto?url=<token>: 302 to the target the token
// names, 404 for an expired or unknown token.
func (s *Server) handleGoto(w http.ResponseWriter, r *http.Request) {
	target := gotoTarget(r.URL.Query().Get("url"))
	if target == "" {
		s.log.Info("serp fixture", "path", r.URL.Path, "status", http.StatusNotFound, "served", "expired redirect")
		http.NotFound(w, r)
		return
	}
	s.log.Info("serp fixture", "path", r.URL.Path, "status", http.StatusFound, "redirect", "opaque")
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, target, http.StatusFound)
}
