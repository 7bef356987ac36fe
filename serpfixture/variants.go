package serpfixture

import (
	"encoding/json"
	"net/http"
)

// Variant replaces what /search answers for one query, so that a test can
// change the page between two visits (a monitor's runs, say): an overview
// of its own (paragraphs citing every link, the links as the side
// panel's sources in order), no overview, or the CAPTCHA.
type Variant struct {
	// Kind is "overview" (Paragraphs and Links), "none" or "captcha".
	Kind       string        `json:"kind"`
	Paragraphs []string      `json:"paragraphs,omitempty"`
	Links      []VariantLink `json:"links,omitempty"`
}

// VariantLink is one website of a Variant's overview.
type VariantLink struct {
	Title string `json:"title"`
	URL   string `json:"url"`
	Site  string `json:"site"`
}

// Variant kinds.
const (
	VariantOverview = "overview"
	VariantNone     = "none"
	VariantCaptcha  = "captcha"
)

// SetVariant makes /search answer query (compared in its NormaliseQuery
// form) with v from now on; a zero Variant restores the query's rules.
func (s *Server) SetVariant(query string, v Variant) {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := NormaliseQuery(query)
	if v.Kind == "" {
		delete(s.variants, key)
		return
	}
	s.variants[key] = v
}

// variantOf returns the variant of a normalised query, if one is set.
func (s *Server) variantOf(key string) (Variant, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.variants[key]
	return v, ok
}

// variantRequest is the body of PUT /__variants.
type variantRequest struct {
	Query   string  `json:"query"`
	Variant Variant `json:"variant"`
}

// handleVariant serves PUT /__variants: {"query": ..., "variant": {...}}
// sets (or, with an empty kind, clears) the answer of a query; 204.
func (s *Server) handleVariant(w http.ResponseWriter, r *http.Request) {
	var req variantRequest
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&req); err != nil || req.Query == "" {
		http.Error(w, `want {"query": "...", "variant": {"kind": "overview"|"none"|"captcha"|"", ...}}`, http.StatusBadRequest)
		return
	}
	switch req.Variant.Kind {
	case "", VariantNone, VariantCaptcha:
	case VariantOverview:
		if len(req.Variant.Paragraphs) == 0 {
			http.Error(w, "an overview variant needs paragraphs", http.StatusBadRequest)
			return
		}
	default:
		http.Error(w, "kind must be overview, none, captcha or empty", http.StatusBadRequest)
		return
	}
	s.SetVariant(req.Query, req.Variant)
	w.WriteHeader(http.StatusNoContent)
}

// behaviour is what the variant makes /search do.
func (v Variant) behaviour() behaviour {
	switch v.Kind {
	case VariantNone:
		return withoutOverview
	case VariantCaptcha:
		return captcha
	}
	return withOverview
}

// overview is the variant's overview: one paragraph block each, citing
// every link.
func (v Variant) overview() overview {
	var ov overview
	cites := make([]int, len(v.Links))
	for i, l := range v.Links {
		cites[i] = i
		ov.Links = append(ov.Links, link{Title: l.Title, Snippet: l.Title, Site: l.Site, URL: l.URL})
	}
	for _, p := range v.Paragraphs {
		ov.Blocks = append(ov.Blocks, blockSpec{Kind: "p", Text: p, Cites: cites})
	}
	return ov
}
