package overview

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
)

// Request is a validated, defaulted AI overview request (spec 4.5), as
// the API's parser produces it.
type Request struct {
	Query       string // whitespace folded, case kept
	Country     string // ISO 3166-1 alpha-2, lower case
	Language    string // ISO 639-1, lower case
	Screenshots bool
	// RawHTML asks for results.rawHtml, a URL of the page's HTML. It is
	// not part of Key: every visit stores the HTML, so one cached result
	// serves requests with and without it, and asking for it never costs
	// a second browser visit.
	RawHTML  bool
	CacheOn  bool
	CacheTTL int // seconds
	Fields   Fields
}

// Fields is the request's `fields` selection; a nil list keeps every
// field of its kind.
type Fields struct {
	Sources           []string
	Citations         []string
	ParagraphText     bool
	ParagraphCitation []string
	// RawHTML keeps results.rawHtml of a request that asked for it
	// (fields.rawHtml, default true).
	RawHTML bool
}

// Key is the identity of a request: the query with case and whitespace
// folded, the country, the language and whether screenshots are needed.
// It is the cache key and the asynq task id, so identical requests share
// one cache entry and one browser visit.
func (r Request) Key() string {
	return CacheKey(r.Query, r.Country, r.Language, r.Screenshots)
}

// CacheKey is Request.Key for the parts of a request.
func CacheKey(query, country, lang string, screenshots bool) string {
	folded := strings.ToLower(strings.Join(strings.Fields(query), " "))
	h := sha256.Sum256(fmt.Appendf(nil, "%s\x00%s\x00%s\x00%t", folded, country, lang, screenshots))
	return "ov1-" + hex.EncodeToString(h[:16])
}
