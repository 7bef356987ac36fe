package overview

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/kisa-dev/kisa"
)

// The use case serves every surface (kisa.Surface) on one path: the
// request's Key gives each surface a key space of its own (cache, task
// id), Results renders each surface's reading as the response's
// `results`, and the surface's screenshot names say which screenshots a
// result must have. A new surface is one request parser (api), one page
// description and extractor (worker) and one case in each of these.

// keyPrefixes start the keys of the surfaces other than the overview,
// whose keys ("ov1-") stay as they were before surfaces existed.
var keyPrefixes = map[kisa.Surface]string{kisa.SurfaceAIMode: "aim1-", kisa.SurfaceWeb: "web1-",
	kisa.SurfaceChatGPT: "gpt1-", kisa.SurfacePerplexity: "pplx1-", kisa.SurfaceGemini: "gem1-", kisa.SurfaceCopilot: "cop1-"}

// surfaceKey turns the overview key base of r's query, country, language
// and screenshots into r's key: base itself for the overview, else a hash
// of base, the surface, the folded follow-ups and (ChatGPT) whether the
// answer searches the web under the surface's prefix.
func (r Request) surfaceKey(base string) string {
	prefix, ok := keyPrefixes[r.Surface]
	if !ok {
		return base
	}
	parts := []string{base, string(r.Surface)}
	for _, f := range r.FollowUps {
		parts = append(parts, strings.ToLower(strings.Join(strings.Fields(f), " ")))
	}
	if r.Surface == kisa.SurfaceChatGPT && !r.WebSearch {
		parts = append(parts, "\x01no-web-search")
	}
	h := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return prefix + hex.EncodeToString(h[:16])
}

// Results renders res as the response's `results` for req's surface,
// keeping only the fields req selected; lists are never null.
func Results(req Request, res kisa.Result) map[string]any {
	switch s := req.Surface.OrOverview(); {
	case s.Conversational():
		return answerResults(res.Conversation(), req.Fields)
	case s == kisa.SurfaceWeb:
		return webResults(res.Web, req)
	}
	return Trim(res.Overview, req.Fields)
}

// answerResults renders a conversation's reading (AI Mode's or an
// assistant's, one shape for all): the answer's fields (turn), hasAnswer,
// the reason when there is none, and one entry per follow-up in turns.
func answerResults(r *kisa.Answer, sel Fields) map[string]any {
	if r == nil {
		r = &kisa.Answer{}
	}
	out := turn(r.AnswerTurn, sel)
	out["hasAnswer"] = r.HasAnswer
	if r.Reason != "" {
		out["reason"] = r.Reason
	}
	turns := make([]map[string]any, 0, len(r.Turns))
	for _, t := range r.Turns {
		m := turn(t, sel)
		m["query"] = t.Query
		turns = append(turns, m)
	}
	out["turns"] = turns
	return out
}

// turn renders one answer with the overview's field selection, each
// citation's and source's position and whether a source is cited (kept
// by every selection), its markdown, its related links, and the model
// and search queries the page showed.
func turn(t kisa.AnswerTurn, sel Fields) map[string]any {
	m := Trim(kisa.Overview{Complete: t.Complete, Text: t.Text, Citations: t.Citations,
		Paragraphs: t.Paragraphs, Sources: t.Sources}, sel)
	delete(m, "hasOverview")
	for i, c := range m["citations"].([]map[string]any) {
		c["position"] = t.Citations[i].Position
	}
	for i, s := range m["sources"].([]map[string]any) {
		s["position"] = t.Sources[i].Position
		s["cited"] = t.Sources[i].Cited != nil && *t.Sources[i].Cited
	}
	m["markdown"] = t.Markdown
	links := make([]map[string]any, 0, len(t.RelatedLinks))
	for _, l := range t.RelatedLinks {
		links = append(links, map[string]any{"url": l.URL, "title": l.Title, "source": l.Source})
	}
	m["relatedLinks"] = links
	if t.Model != "" {
		m["model"] = t.Model
	}
	if len(t.SearchQueries) > 0 {
		m["searchQueries"] = t.SearchQueries
	}
	return m
}

// webResults renders the first req.MaxResults organic results (all when
// 0) with the fields of req.Fields.Organic (all when nil).
func webResults(w *kisa.WebResults, req Request) map[string]any {
	var organic []kisa.OrganicResult
	if w != nil {
		organic = w.Organic
	}
	if req.MaxResults > 0 && len(organic) > req.MaxResults {
		organic = organic[:req.MaxResults]
	}
	out := make([]map[string]any, 0, len(organic))
	for _, o := range organic {
		out = append(out, pick(req.Fields.Organic, map[string]any{
			"position": o.Position, "title": o.Title, "url": o.URL, "description": o.Description}))
	}
	return map[string]any{"organic": out}
}
