package overview

import (
	"slices"

	"github.com/kisa-dev/kisa"
)

// Trim renders an overview as the response's `results`, keeping
// only the fields the request selected (spec 4.5 rule 3). It runs after
// the cache, so one cached entry serves every selection. Lists are never
// null.
func Trim(ov kisa.Overview, sel Fields) map[string]any {
	paragraphs := make([]map[string]any, 0, len(ov.Paragraphs))
	for _, p := range ov.Paragraphs {
		m := map[string]any{"citations": citationList(p.Citations, sel.ParagraphCitation)}
		if sel.ParagraphText {
			m["text"] = p.Text
		}
		paragraphs = append(paragraphs, m)
	}
	sources := make([]map[string]any, 0, len(ov.Sources))
	for _, s := range ov.Sources {
		sources = append(sources, pick(sel.Sources, withLinkState(map[string]any{
			"url": s.URL, "title": s.Title, "source": s.Source, "icon": s.Icon}, s.LinkState)))
	}
	return map[string]any{
		"hasOverview": ov.HasOverview,
		"complete":    ov.Complete,
		"text":        ov.Text,
		"citations":   citationList(ov.Citations, sel.Citations),
		"paragraphs":  paragraphs,
		"sources":     sources,
	}
}

func citationList(cs []kisa.Citation, keep []string) []map[string]any {
	out := make([]map[string]any, 0, len(cs))
	for _, c := range cs {
		out = append(out, pick(keep, withLinkState(map[string]any{
			"url": c.URL, "title": c.Title, "source": c.Source, "favicon": c.Favicon}, c.LinkState)))
	}
	return out
}

// withLinkState adds to a source's or citation's fields the date its card
// shows and whether its URL was resolved through the engine's opaque
// redirect, each when the page gave it.
func withLinkState(m map[string]any, s kisa.LinkState) map[string]any {
	if s.PublishedAt != "" {
		m["publishedAt"] = s.PublishedAt
	}
	if s.Resolved != nil {
		m["resolved"] = *s.Resolved
	}
	return m
}

// pick keeps the keys of m listed in keep; a nil keep keeps them all.
func pick(keep []string, m map[string]any) map[string]any {
	if keep == nil {
		return m
	}
	for k := range m {
		if !slices.Contains(keep, k) {
			delete(m, k)
		}
	}
	return m
}
