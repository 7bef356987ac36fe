package overview

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/geo"
)

// Request is a validated, defaulted AI overview request (spec 4.5), as
// the API's parser produces it.
type Request struct {
	Query    string // whitespace folded, case kept
	Country  string // ISO 3166-1 alpha-2, lower case
	Language string // ISO 639-1, lower case
	// Device is kisa.DeviceDesktop (also when empty) or kisa.DeviceMobile.
	Device string
	// Location narrows the place inside Country (the zero Location: the
	// whole country); it lies in Country as far as geo can tell.
	Location    geo.Location
	Screenshots bool
	// RawHTML asks for results.rawHtml, a URL of the page's HTML. It is
	// not part of Key: every visit stores the HTML, so one cached result
	// serves requests with and without it, and asking for it never costs
	// a second browser visit.
	RawHTML  bool
	CacheOn  bool
	CacheTTL int // seconds
	Fields   Fields
	// Surface is the page the request reads; empty is the overview.
	Surface kisa.Surface
	// FollowUps are the further prompts of a conversation's request (AI
	// Mode, an assistant), asked in order in the same conversation.
	FollowUps []string
	// MaxResults is how many organic results a web search answers.
	MaxResults int
	// WebSearch asks ChatGPT to search the web for its answer (its search
	// toggle; the parser's default is true); other surfaces ignore it.
	WebSearch bool
	// Sample numbers a background reading among the samples a monitor
	// takes of one target in one run (0 or 1: the first). Above 1 it is
	// part of Key, so that each sample is a visit of its own (a fresh
	// tab, never joined with another sample's).
	Sample int
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
	// Organic are the fields of a web search's organic results.
	Organic []string
}

// Key is the identity of a request: the query with case and whitespace
// folded, the country, the language, whether screenshots are needed, the
// device and the location. It is the cache key and the asynq task id, so
// identical requests share one cache entry and one browser visit.
func (r Request) Key() string {
	k := r.surfaceKey(placeKey(r.Query, r.Country, r.Language, r.Screenshots, r.Device, r.Location))
	if r.Sample > 1 {
		k += fmt.Sprintf("-s%d", r.Sample)
	}
	return k
}

// placeKey is Request.Key for the parts of a request. A desktop request
// for the whole country has the key it had before devices and locations
// existed, so results cached then stay found.
func placeKey(query, country, lang string, screenshots bool, device string, loc geo.Location) string {
	folded := strings.ToLower(strings.Join(strings.Fields(query), " "))
	b := fmt.Appendf(nil, "%s\x00%s\x00%s\x00%t", folded, country, lang, screenshots)
	if device == kisa.DeviceMobile || !loc.IsZero() {
		if device == "" {
			device = kisa.DeviceDesktop
		}
		b = fmt.Appendf(b, "\x00%s\x00%s", device, loc.Key())
	}
	h := sha256.Sum256(b)
	return "ov1-" + hex.EncodeToString(h[:16])
}
