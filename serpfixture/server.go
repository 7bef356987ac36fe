package serpfixture

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/kisa-dev/kisa/serpfixture/captured"
)

// DefaultOverviewDelay is how long an overview takes to stream in when
// Options.OverviewDelay is zero.
const DefaultOverviewDelay = 1500 * time.Millisecond

// ConsentCookie is the cookie that /save sets and whose presence lets
// /search through when Options.Consent is on.
const ConsentCookie = "SOCS"

// Values of ConsentCookie for the two answers of the consent page.
const (
	consentRejected = "CAESHAgBEhJnd3NfMjAyNjAxMDEtMF9SQzEaAmVuIAEaBgiA_LyuBg"
	consentAccepted = "CAESHAgCEhJnd3NfMjAyNjAxMDEtMF9SQzEaAmVuIAEaBgiA_LyuBg"
)

// consentMaxAge is how long the consent cookie lives: 13 months.
const consentMaxAge = 13 * 30 * 24 * time.Hour

// Options configure a Server. The zero value serves pages without the
// consent interstitial, streams overviews in DefaultOverviewDelay and logs
// nothing.
type Options struct {
	// OverviewDelay is how long after the page loads the overview (and
	// each AI Mode answer) is complete: it shows "loading" for the first
	// 40%, then grows block by block. Zero means DefaultOverviewDelay; a
	// negative value streams it in at once (still by script).
	OverviewDelay time.Duration
	// Generating, when set, replaces the loading phase by one of this
	// length in which the block shows the engine's "Generating" status
	// and no answer yet (Stream.Generating).
	Generating time.Duration
	// Pause, when set, makes the answers stream in bursts with silences of
	// this length between them (Stream.Pause).
	Pause time.Duration
	// Consent sends requests without ConsentCookie to the consent page.
	Consent bool
	// HostileTarget is the host:port that the page of HostileQuery tries
	// to reach; empty serves that query like any other.
	HostileTarget string
	// Logger receives one line per request; nil discards them.
	Logger *slog.Logger
	// AllowAutomated serves results to a browser that looks automated
	// (see automated and presenceCheck), which otherwise gets the CAPTCHA
	// page: for tests that drive a bare Chromium.
	AllowAutomated bool
}

// Server is the fixture search engine, an http.Handler. It is safe for
// concurrent use.
type Server struct {
	stream  Stream // Options.OverviewDelay, Generating and Pause
	consent bool
	hostile string // Options.HostileTarget
	robots  bool   // Options.AllowAutomated
	log     *slog.Logger
	pages   *pages
	mux     *http.ServeMux

	mu           sync.Mutex
	visits       map[string]int
	consentShown int
	variants     map[string]Variant  // SetVariant
	seen         map[string]Seen     // by normalised query; see Seen
	rewrites     map[string][]string // SetEngineRewrite
	heldBegun    int                 // /held.png requests begun (Held)
	heldAnswered int                 // and answered
}

// New returns a Server configured by opts. It panics only if the embedded
// page templates do not parse, a defect caught by the package's tests.
func New(opts Options) *Server {
	p, err := newPages()
	if err != nil {
		panic("serpfixture: " + err.Error())
	}
	s := &Server{stream: Stream{Delay: opts.OverviewDelay, Generating: opts.Generating, Pause: opts.Pause}, consent: opts.Consent, hostile: opts.HostileTarget, log: opts.Logger, pages: p, visits: map[string]int{},
		variants: map[string]Variant{}, seen: map[string]Seen{}, robots: opts.AllowAutomated}
	if s.stream.Delay == 0 {
		s.stream.Delay = DefaultOverviewDelay
	}
	s.stream.Delay = max(s.stream.Delay, 0)
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.routes()
	return s
}

// routes registers the handlers.
func (s *Server) routes() {
	s.mux = http.NewServeMux()
	s.mux.HandleFunc("GET /{$}", s.handleHome)
	s.mux.HandleFunc("GET /search", s.handleSearch)
	s.mux.HandleFunc("GET /aimode/turn", s.handleAITurn)
	s.mux.HandleFunc("GET /goto", s.handleGoto)
	s.mux.HandleFunc("GET /sorry/index", s.handleSorry)
	s.mux.HandleFunc("GET /consent", s.handleConsent)
	s.mux.HandleFunc("POST /save", s.handleSave)
	s.mux.HandleFunc("GET /__visits", s.handleVisits)
	s.mux.HandleFunc("PUT /__variants", s.handleVariant)
	s.mux.HandleFunc("GET /healthz", s.handleHealth)
	s.mux.HandleFunc("GET /held.png", s.handleHeld)
	s.engineRoutes()
}

// ServeHTTP serves the fixture's pages.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mux.ServeHTTP(w, r)
}

// Visits returns how many results-page visits query got: /search requests
// that served a results page or the CAPTCHA redirect. Queries are compared
// in their NormaliseQuery form.
func (s *Server) Visits(query string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.visits[NormaliseQuery(query)]
}

// ConsentShown returns how many times the consent page was served.
func (s *Server) ConsentShown() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.consentShown
}

// countVisit records one results-page visit of a normalised query.
func (s *Server) countVisit(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.visits[key]++
}

// handleSearch serves GET /search?q=&hl=&gl= (and &final=1).
func (s *Server) handleSearch(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Get("udm") == AIModeUDM {
		s.handleAIMode(w, r)
		return
	}
	query, hl, gl := q.Get("q"), langOf(q.Get("hl")), q.Get("gl")
	key := NormaliseQuery(query)
	switch {
	case key == "":
		s.redirect(w, r, "/?"+url.Values{"hl": {hl}, "gl": {gl}}.Encode(), http.StatusFound, "empty query")
		return
	case !s.robots && automated(r) != "":
		s.countVisit(key)
		v := url.Values{"continue": {absoluteURL(r)}, "q": {"EgQKAgICGIqV6s0GIjB"}}
		s.redirect(w, r, "/sorry/index?"+v.Encode(), http.StatusFound, "captcha: "+automated(r))
		return
	case s.consent && !hasConsent(r):
		v := url.Values{"continue": {absoluteURL(r)}, "gl": {gl}, "hl": {hl}}
		s.redirect(w, r, "/consent?"+v.Encode(), http.StatusFound, "consent")
		return
	}
	s.countVisit(key)
	seen := s.see(key, r)
	b := behaviourOf(key)
	v, varied := s.variantOf(key)
	if varied {
		b = v.behaviour()
	}
	switch b {
	case captcha:
		v := url.Values{"continue": {absoluteURL(r)}, "q": {"EgQKAgICGIqV6s0GIjB"}}
		s.redirect(w, r, "/sorry/index?"+v.Encode(), http.StatusFound, "captcha")
	case realCapture:
		s.writeHTML(w, r, http.StatusOK, []byte(s.pages.real), "real page")
	case real2025:
		s.writeHTML(w, r, http.StatusOK, []byte(s.pages.real2025), "real 2025 page")
	case realWeb:
		name := RealWebQueries[key]
		if seen.Mobile && RealPhoneWebQueries[key] != "" {
			name = RealPhoneWebQueries[key]
		}
		page, err := captured.FS.ReadFile(name)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		s.writeHTML(w, r, http.StatusOK, page, "real results page")
	case capturedPage:
		page, err := captured.FS.ReadFile(strings.TrimPrefix(key, CapturedQuery))
		if err != nil {
			http.Error(w, err.Error(), http.StatusNotFound)
			return
		}
		s.writeHTML(w, r, http.StatusOK, page, "captured page")
	default:
		st, err := s.streamFor(q)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		req := resultsRequest{query: query, hl: hl, gl: gl, final: q.Get("final") == "1", stream: st, phone: seen.Mobile}
		if varied {
			req.variant = &v
		}
		s.serveResults(w, r, req, seen)
	}
}

// serveResults renders and writes a results page: the phone's layout for
// a mobile request, checking the browser's presence unless automated
// browsers are allowed, and with the presence report for PresenceQuery.
func (s *Server) serveResults(w http.ResponseWriter, r *http.Request, req resultsRequest, seen Seen) {
	b, err := s.pages.results(req)
	if err == nil && NormaliseQuery(req.query) == PresenceQuery {
		b, err = withPresenceReport(b, seen)
	}
	if err != nil {
		s.log.Error("render results page", "query", req.query, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	if s.hostile != "" && isHostile(NormaliseQuery(req.query)) {
		b = withHostile(b, s.hostile)
	}
	if hold := r.URL.Query().Get(ParamHold); hold != "" {
		b = withHeld(b, hold)
	}
	if seen.Mobile {
		b = withMobileStyle(b)
	}
	if !s.robots {
		b = withPresenceCheck(b)
	}
	s.writeHTML(w, r, http.StatusOK, b, "results")
}

// handleSorry serves the real CAPTCHA page with status 429, as the search
// engine does.
func (s *Server) handleSorry(w http.ResponseWriter, r *http.Request) {
	s.writeHTML(w, r, http.StatusTooManyRequests, []byte(s.pages.sorry), "captcha page")
}

// handleHome serves a search box.
func (s *Server) handleHome(w http.ResponseWriter, r *http.Request) {
	hl, gl := langOf(r.URL.Query().Get("hl")), r.URL.Query().Get("gl")
	s.render(w, r, "home.html.tmpl", map[string]any{"W": wordsFor(hl), "HL": hl, "GL": gl}, "home")
}

// handleVisits serves the counters as JSON: with ?q= the visits of that
// query, without it the visits of every query; both with the number of
// consent pages shown.
func (s *Server) handleVisits(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	body := map[string]any{"consent": s.consentShown}
	if q, ok := r.URL.Query()["q"]; ok {
		key := NormaliseQuery(q[0])
		body["query"], body["visits"] = key, s.visits[key]
	} else {
		all := make(map[string]int, len(s.visits))
		for k, v := range s.visits {
			all[k] = v
		}
		body["visits"] = all
	}
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(body); err != nil {
		s.log.Warn("write visits", "err", err)
	}
}

// handleHealth answers 200 "ok".
func (s *Server) handleHealth(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte("ok\n"))
}

// render executes a page template and writes it.
func (s *Server) render(w http.ResponseWriter, r *http.Request, name string, data any, what string) {
	var buf bytes.Buffer
	if err := s.pages.tmpl.ExecuteTemplate(&buf, name, data); err != nil {
		s.log.Error("render page", "page", name, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	s.writeHTML(w, r, http.StatusOK, buf.Bytes(), what)
}

// writeHTML writes an HTML page and logs the request.
func (s *Server) writeHTML(w http.ResponseWriter, r *http.Request, status int, body []byte, what string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	if _, err := w.Write(body); err != nil {
		s.log.Warn("write page", "path", r.URL.Path, "err", err)
	}
	s.log.Info("serp fixture", "path", r.URL.Path, "q", r.URL.Query().Get("q"), "status", status, "served", what)
}

// redirect redirects and logs the request.
func (s *Server) redirect(w http.ResponseWriter, r *http.Request, to string, status int, why string) {
	http.Redirect(w, r, to, status)
	s.log.Info("serp fixture", "path", r.URL.Path, "q", r.URL.Query().Get("q"), "status", status, "redirect", why)
}

// langOf returns hl, or "en" when it is empty.
func langOf(hl string) string {
	if hl == "" {
		return "en"
	}
	return hl
}

// absoluteURL returns the full URL of r, as the search engine puts it into
// continue parameters.
func absoluteURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host + r.URL.RequestURI()
}
