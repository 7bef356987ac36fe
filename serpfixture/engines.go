package serpfixture

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/kisa-dev/kisa/serpfixture/assistants"
	hooks "github.com/kisa-dev/kisa/worker/assistants"
)

// The AI assistants' sites (ChatGPT, Perplexity, Gemini, Copilot), each
// under /<engine>/ beside the search engine, in the markup of
// serpfixture/assistants (modelled on the real pages). The start page
// shows the composer under a cookie banner and a dismissable sign-in
// nag; a small script (engines.js) makes it behave as the real single-page
// sites do: sending the composer (its send button, or Enter) streams the
// answer in (the streaming sign and the stop control, then the whole
// answer and its action bar after the fixture's delay), the sources
// control opens the sources panel, follow-ups append turns. The prompt
// decides what the site does instead (EngineBehaviours): a human check, a
// sign-in wall, a usage limit, the engine's error, an answer in a layout
// no reading knows, or an answer that never finishes.

//go:embed engines.js
var enginesJS string

// EngineBehaviours maps a phrase of a prompt to the notice
// (assistants.Notice*) the site shows instead of answering it, or
// "stall" for an answer that streams forever.
var EngineBehaviours = map[string]string{
	"human check":    assistants.NoticeHumanCheck,
	"sign-in wall":   assistants.NoticeSignInWall,
	"usage limit":    assistants.NoticeUsageLimit,
	"engine error":   assistants.NoticeError,
	"unknown layout": assistants.NoticeUnknown,
	"never finishes": "stall",
}

// engineHooks are the hooks of each engine's page, as engines.js takes
// them.
var engineHooks = map[string]*hooks.Hooks{assistants.ChatGPT: &hooks.ChatGPT, assistants.Perplexity: &hooks.Perplexity,
	assistants.Gemini: &hooks.Gemini, assistants.Copilot: &hooks.Copilot}

// EnginePath is the start page of engine's site ("/chatgpt/").
func EnginePath(engine string) string { return "/" + engine + "/" }

// Env returns the KISA_...=value lines that point kisa at a fixture
// served at base (http://host:port): the search URL and each engine's
// site.
func Env(base string) []string {
	out := []string{"KISA_SEARCH_URL=" + base + "/search"}
	for _, e := range assistants.Engines {
		out = append(out, "KISA_"+strings.ToUpper(e)+"_URL="+base+EnginePath(e))
	}
	return out
}

// engineRoutes registers the sites' handlers.
func (s *Server) engineRoutes() {
	for _, e := range assistants.Engines {
		s.mux.HandleFunc("GET /"+e+"/{$}", s.handleEngineStart)
	}
	s.mux.HandleFunc("GET /{engine}/render", s.handleEngineRender)
	s.mux.HandleFunc("GET /{engine}/notice/{notice}", s.handleEngineNotice)
}

// engineOf returns the request's engine, or answers 404.
func engineOf(w http.ResponseWriter, r *http.Request) (string, bool) {
	e := r.PathValue("engine")
	if e == "" {
		e = strings.Trim(r.URL.Path, "/")
	}
	if !slices.Contains(assistants.Engines, e) {
		http.NotFound(w, r)
		return "", false
	}
	return e, true
}

// handleEngineStart serves an engine's start page.
func (s *Server) handleEngineStart(w http.ResponseWriter, r *http.Request) {
	e, ok := engineOf(w, r)
	if !ok {
		return
	}
	b, err := s.enginePage(e, assistants.Page{CookieBanner: true, SignInNag: true})
	if err != nil {
		s.log.Error("render engine start page", "engine", e, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	s.writeHTML(w, r, http.StatusOK, b, e+" start page")
}

// engineTurn is what engines.js gets for a state of the conversation:
// the page to show, or where to go instead, and how the answer goes on.
type engineTurn struct {
	HTML   string `json:"html,omitempty"`
	Notice string `json:"notice,omitempty"` // a URL to navigate to
	Delay  int64  `json:"delay"`            // ms until the answer is whole
	Stall  bool   `json:"stall,omitempty"`  // it never is
}

// handleEngineRender serves GET /<engine>/render?p=...&streaming=1&sources=1:
// the conversation page with the prompts asked so far, as JSON
// (engineTurn); a first prompt with a phrase of EngineBehaviours gets its
// notice instead.
func (s *Server) handleEngineRender(w http.ResponseWriter, r *http.Request) {
	e, ok := engineOf(w, r)
	if !ok {
		return
	}
	q := r.URL.Query()
	prompts := q["p"]
	t := engineTurn{Delay: s.stream.Delay.Milliseconds()}
	behaviour := ""
	if len(prompts) > 0 {
		behaviour = engineBehaviour(prompts[len(prompts)-1])
	}
	switch behaviour {
	case "":
	case "stall":
		t.Stall = true
	default:
		t.Notice = EnginePath(e) + "notice/" + behaviour
	}
	if t.Notice == "" {
		b, err := s.enginePage(e, assistants.Page{Prompts: prompts, Streaming: q.Get("streaming") == "1" || t.Stall,
			SourcesOpen: q.Get("sources") == "1"})
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		t.HTML = string(s.rewrite(prompts, b))
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	if err := json.NewEncoder(w).Encode(t); err != nil {
		s.log.Warn("write engine turn", "err", err)
	}
	s.log.Info("serp fixture", "path", r.URL.Path, "engine", e, "prompts", len(prompts), "served", cmpOr(behaviour, "answer"))
}

// handleEngineNotice serves an engine's notice page (assistants.Notices).
func (s *Server) handleEngineNotice(w http.ResponseWriter, r *http.Request) {
	e, ok := engineOf(w, r)
	if !ok {
		return
	}
	n := r.PathValue("notice")
	b, err := assistants.Notice(e, n)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	status := http.StatusOK
	if n == assistants.NoticeHumanCheck {
		status = http.StatusForbidden // as Cloudflare's interstitial answers
	}
	s.writeHTML(w, r, status, b, e+" "+n)
}

// enginePage renders engine's page in state p with engines.js, which
// drives it, in its head.
func (s *Server) enginePage(engine string, p assistants.Page) ([]byte, error) {
	b, err := assistants.Render(engine, p)
	if err != nil {
		return nil, err
	}
	h, err := json.Marshal(engineHooks[engine])
	if err != nil {
		return nil, err
	}
	script := fmt.Sprintf("<script>(%s)(%s, %q);</script>", enginesJS, h, EnginePath(engine))
	if i := bytes.Index(b, []byte("</head>")); i >= 0 {
		return slices.Concat(b[:i], []byte(script), b[i:]), nil
	}
	return append([]byte(script), b...), nil
}

// SetEngineRewrite makes every engine's site answer a conversation whose
// first prompt contains prompt (case folded) with each old string of
// pairs (old, new, old, new, ...) replaced by its new one: an answer that
// changes between two readings (a monitor's change events). No pairs
// undo it.
func (s *Server) SetEngineRewrite(prompt string, pairs ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rewrites == nil {
		s.rewrites = map[string][]string{}
	}
	s.rewrites[strings.ToLower(prompt)] = pairs
}

// rewrite applies SetEngineRewrite's replacements for prompts to page.
func (s *Server) rewrite(prompts []string, page []byte) []byte {
	if len(prompts) == 0 {
		return page
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	first := strings.ToLower(prompts[0])
	for p, pairs := range s.rewrites {
		if strings.Contains(first, p) && len(pairs) > 1 {
			page = []byte(strings.NewReplacer(pairs...).Replace(string(page)))
		}
	}
	return page
}

// engineBehaviour is the behaviour a prompt asks for ("" for an answer).
func engineBehaviour(prompt string) string {
	p := strings.ToLower(prompt)
	for phrase, b := range EngineBehaviours {
		if strings.Contains(p, phrase) {
			return b
		}
	}
	return ""
}

// cmpOr returns a, or b when a is empty.
func cmpOr(a, b string) string {
	if a == "" {
		return b
	}
	return a
}
