package monitor

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/publicsuffix"
	"golang.org/x/text/language"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/geo"
)

// Surfaces a target can read: those of the single-call endpoints
// (kisa.Surfaces).
const (
	SurfaceAIOverview = string(kisa.SurfaceOverview)
	SurfaceAIMode     = string(kisa.SurfaceAIMode)
	SurfaceWebSearch  = string(kisa.SurfaceWeb)
)

// MaxWebQueryChars bounds the query of a web-search target, as the
// web-search endpoint bounds its query.
const MaxWebQueryChars = 100

// Bounds of a monitor's definition.
const (
	MaxTargets      = 1000
	MaxWatchDomains = 50
	MaxQueryChars   = 500
	MaxNameChars    = 200
	MaxSamples      = 5
)

// A target's country and language when it names none: those of the
// single-call endpoint.
const (
	DefaultCountry  = "at"
	DefaultLanguage = "de"
)

// Target is one thing a monitor reads on every run: a surface with its
// query, country and language, as the single-call endpoints take them.
type Target struct {
	Surface      string `json:"surface"`
	Query        string `json:"query"`
	CountryCode  string `json:"countryCode"`
	LanguageCode string `json:"languageCode"`
	// Device is kisa.DeviceDesktop (the default) or kisa.DeviceMobile:
	// the reading's visit is made as that device.
	Device string `json:"device"`
	// Location narrows the place of the visit inside the country, as the
	// overview request's `location` does; absent, the whole country.
	Location Place `json:"location,omitzero"`
	// Samples is how many readings of the target a run makes (1, the
	// default, to MaxSamples): separate visits, each a fresh browser
	// state, since answers vary between identical requests. It is not
	// part of the target's identity.
	Samples int `json:"samples"`
}

// Place is a target's location: a geo.Location that keeps the JSON it was
// given until Normalize checks it as the overview request does
// (geo.ParseJSON, then geo.Location.Check against the country).
type Place struct {
	geo.Location
	raw json.RawMessage // as given; nil once checked or when read from storage
}

// UnmarshalJSON keeps b for Normalize to check.
func (p *Place) UnmarshalJSON(b []byte) error {
	*p = Place{raw: append(json.RawMessage(nil), b...)}
	return nil
}

// MarshalJSON writes the location as geo.Location does.
func (p Place) MarshalJSON() ([]byte, error) { return p.Location.MarshalJSON() }

// IsZero reports whether p names no place (omitzero leaves it out).
func (p Place) IsZero() bool { return p.raw == nil && p.Location.IsZero() }

// key is the location's part of a target's identity: geo.Location.Key,
// or the JSON as given while it is unchecked (two invalid locations are
// not the same target).
func (p Place) key() string {
	if p.raw != nil {
		return "raw:" + string(p.raw)
	}
	return p.Location.Key()
}

// PlaceOf is a Place holding l, already checked.
func PlaceOf(l geo.Location) Place { return Place{Location: l} }

// normal returns t with whitespace folded, codes lower-cased and the
// surface defaulted, and the problems of target i.
func (t Target) normal(i int, p problems) Target {
	at := func(f string) string { return fmt.Sprintf("targets[%d].%s", i, f) }
	if t.Surface == "" {
		t.Surface = SurfaceAIOverview
	}
	if !slices.Contains(kisa.Surfaces, kisa.Surface(t.Surface)) {
		names := make([]string, len(kisa.Surfaces))
		for i, s := range kisa.Surfaces {
			names[i] = string(s)
		}
		p.add(at("surface"), "must be one of: "+strings.Join(names, ", "))
	}
	most := MaxQueryChars
	if t.Surface == SurfaceWebSearch {
		most = MaxWebQueryChars
	}
	t.Query = strings.Join(strings.Fields(t.Query), " ")
	switch n := utf8.RuneCountInString(t.Query); {
	case n == 0:
		p.add(at("query"), "must not be empty")
	case n > most:
		p.add(at("query"), fmt.Sprintf("must be at most %d characters, got %d", most, n))
	case strings.IndexFunc(t.Query, unicode.IsControl) >= 0:
		p.add(at("query"), "must not contain control characters")
	}
	t.CountryCode = cmp.Or(strings.ToLower(strings.TrimSpace(t.CountryCode)), DefaultCountry)
	if !validCountry(t.CountryCode) {
		p.add(at("countryCode"), "must be an ISO 3166-1 alpha-2 country code")
	}
	t.LanguageCode = cmp.Or(strings.ToLower(strings.TrimSpace(t.LanguageCode)), DefaultLanguage)
	if !validLanguage(t.LanguageCode) {
		p.add(at("languageCode"), "must be an ISO 639-1 language code")
	}
	t.Device = cmp.Or(t.Device, kisa.DeviceDesktop)
	if err := kisa.CheckDevice(t.Device); err != nil {
		p.add(at("device"), err.Error())
	}
	t.Location = t.Location.checked(at("location"), t.CountryCode, p)
	t.Samples = cmp.Or(t.Samples, 1)
	if t.Samples < 1 || t.Samples > MaxSamples {
		p.add(at("samples"), fmt.Sprintf("must be 1 to %d", MaxSamples))
	}
	return t
}

// checked parses a location given in JSON as the overview request does,
// recording its problems under path (path.latitude, ...), and checks that
// it lies in country (when that is a valid code).
func (pl Place) checked(path, country string, p problems) Place {
	if pl.raw != nil {
		loc, probs := geo.ParseJSON(pl.raw)
		for k, msg := range probs {
			if k != "" {
				k = "." + k
			}
			p.add(path+k, msg)
		}
		if len(probs) > 0 {
			return pl
		}
		pl = PlaceOf(loc)
	}
	if validCountry(country) {
		if err := pl.Location.Check(country); err != nil {
			p.add(path, err.Error())
		}
	}
	return pl
}

// Identity is what makes two targets the same across edits of a monitor:
// the surface, the query with case and whitespace folded, the country,
// the language, the device and the location (hashed). A target that
// keeps its identity keeps its id and history. A desktop target for the
// whole country has the identity it had before devices and locations.
func (t Target) Identity() string {
	parts := []string{t.Surface, strings.ToLower(strings.Join(strings.Fields(t.Query), " ")), t.CountryCode, t.LanguageCode}
	if (t.Device != "" && t.Device != kisa.DeviceDesktop) || !t.Location.IsZero() {
		parts = append(parts, cmp.Or(t.Device, kisa.DeviceDesktop), t.Location.key())
	}
	h := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(h[:16])
}

// validCountry reports whether s is an assigned ISO 3166-1 alpha-2 code.
func validCountry(s string) bool {
	if len(s) != 2 {
		return false
	}
	r, err := language.ParseRegion(s)
	return err == nil && r.IsCountry() && strings.EqualFold(r.String(), s)
}

// validLanguage reports whether s is an ISO 639-1 (two-letter) code.
func validLanguage(s string) bool {
	if len(s) != 2 {
		return false
	}
	b, err := language.ParseBase(s)
	return err == nil && b.String() == s
}

// Definition is what an account says a monitor is: POST's body, and the
// whole of it after a PATCH.
type Definition struct {
	Name     string   `json:"name"`
	Schedule Schedule `json:"schedule"`
	Targets  []Target `json:"targets"`
	Watch    Watch    `json:"watch"`
	Webhook  *Hook    `json:"webhook,omitempty"`
	Paused   bool     `json:"paused"`
}

// Watch lists the registrable domains whose citations a monitor follows
// and the brands it measures in every answer.
type Watch struct {
	Domains []string `json:"domains"`
	Brands  []Brand  `json:"brands"`
}

// Hook is a monitor's webhook.
type Hook struct {
	URL string `json:"url"`
}

// Vetting is what the deployment allows beyond the rules of this
// package: a webhook URL (webhook.Guard.CheckURL) and a country (the
// countries KISA_PROXIES serves). A nil field allows everything.
type Vetting struct {
	WebhookURL func(string) error
	Country    func(string) bool
}

// Normalize validates d and returns it normalised (targets folded and
// de-duplicated, domains lower-cased), with its schedule as a cron spec.
// Its error is an *InvalidError.
func (d Definition) Normalize(v Vetting) (Definition, string, error) {
	p := problems{}
	d.Name = strings.TrimSpace(d.Name)
	if n := utf8.RuneCountInString(d.Name); n == 0 || n > MaxNameChars {
		p.add("name", fmt.Sprintf("must be 1 to %d characters", MaxNameChars))
	}
	spec, err := d.Schedule.Spec()
	p.merge(err)
	d.Targets = normalTargets(d.Targets, p)
	for i, t := range d.Targets {
		if v.Country != nil && validCountry(t.CountryCode) && !v.Country(t.CountryCode) {
			p.add(fmt.Sprintf("targets[%d].countryCode", i),
				"this deployment does not serve country "+t.CountryCode+" (see GET /v1/networks/browser/countries)")
		}
	}
	d.Watch.Domains = normalDomains(d.Watch.Domains, p)
	d.Watch.Brands = normalBrands(d.Watch.Brands, p)
	if d.Webhook != nil && v.WebhookURL != nil {
		if err := v.WebhookURL(d.Webhook.URL); err != nil {
			p.add("webhook.url", err.Error())
		}
	}
	return d, spec, p.err()
}

func normalTargets(ts []Target, p problems) []Target {
	if len(ts) == 0 || len(ts) > MaxTargets {
		p.add("targets", fmt.Sprintf("must hold 1 to %d targets", MaxTargets))
		return ts
	}
	out := make([]Target, 0, len(ts))
	seen := map[string]int{}
	for i, t := range ts {
		t = t.normal(i, p)
		if j, ok := seen[t.Identity()]; ok {
			p.add(fmt.Sprintf("targets[%d]", i), fmt.Sprintf("repeats targets[%d]", j))
			continue
		}
		seen[t.Identity()] = i
		out = append(out, t)
	}
	return out
}

func normalDomains(ds []string, p problems) []string {
	if len(ds) > MaxWatchDomains {
		p.add("watch.domains", fmt.Sprintf("must hold at most %d domains", MaxWatchDomains))
		return ds
	}
	return registrableList(ds, "watch.domains", p)
}

// Registrable returns the registrable domain (eTLD+1) of a host name or
// URL, lower-cased: "https://www.Example.co.uk/x" -> "example.co.uk".
// ok is false for what has none (an IP address, a bare public suffix).
func Registrable(s string) (string, bool) {
	h := strings.ToLower(strings.TrimSpace(s))
	if strings.Contains(h, "://") {
		u, err := url.Parse(h)
		if err != nil {
			return "", false
		}
		h = u.Hostname()
	}
	h = strings.TrimSuffix(h, ".")
	if h == "" || strings.ContainsAny(h, "/:@ ") || !strings.Contains(h, ".") {
		return "", false
	}
	reg, err := publicsuffix.EffectiveTLDPlusOne(h)
	if err != nil {
		return "", false
	}
	return reg, true
}
