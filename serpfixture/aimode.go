package serpfixture

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// AI Mode (/search?udm=50) in the real page's markup (the captured AI
// Mode conversation in captured/): a root of turns, each turn a prompt
// heading ("You said:") and an aimc subtree with the answer's main column
// (.mZJni, data-container-id="main-col") beside the side panel of sources
// (data-container-id="rhs-col", the overview's side panel with "Show all"
// and its dialog); citation chips as in the overview. The answer streams
// in after the page loads: the subtree is aria-busy="true" and the column
// ends in a "Generating..." status line until the answer is whole (a
// modelled hook: the saved real pages are all finished); then the answer
// shows its feedback buttons ("Good response", "Bad response", toggles
// with aria-pressed), as every finished answer of the real conversation
// does. Above the turns
// the search box of the live page (a textarea named q, a combobox, in a
// role="search" form); below them AI Mode's composer (a textarea in its
// input plate, data-xid="aim-mars-input-plate"): asking in it appends a
// turn that streams its answer the same way, fetched from /aimode/turn.

// AIModeUDM is the udm value of AI Mode's pages.
const AIModeUDM = "50"

// AIModeUnavailable are the countries (gl, upper case) where the fixture,
// like the real engine, does not offer AI Mode and serves its notice.
var AIModeUnavailable = []string{"FR"}

// aiModeData feeds aimode.html.tmpl.
type aiModeData struct {
	Query, HL, GL string
	W             words
	// Notice is the "not available" notice; when set the page has nothing else.
	Notice string
	Turns  template.HTML
	Stream template.JS
	// Params are the request's stream parameters (ParamDelay...), which the
	// prompt box and the follow-ups pass on.
	Params url.Values
}

// aiTurn is one turn's markup: its shell (prompt, empty busy answer) and
// the chunks that stream into it, or the finished turn.
type aiTurn struct {
	Shell    string   `json:"shell"`
	Chunks   []chunk  `json:"chunks"`
	Schedule schedule `json:"schedule"`
	Stall    bool     `json:"stall"`
	// Actions are the feedback buttons the turn shows once it is whole.
	Actions string `json:"actions"`
}

// handleAIMode serves /search?udm=50: the start page without a query, the
// notice in AIModeUnavailable's countries, else the answer page.
func (s *Server) handleAIMode(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	query, hl, gl := q.Get("q"), langOf(q.Get("hl")), q.Get("gl")
	key := NormaliseQuery(query)
	if s.consent && !hasConsent(r) {
		v := url.Values{"continue": {absoluteURL(r)}, "gl": {gl}, "hl": {hl}}
		s.redirect(w, r, "/consent?"+v.Encode(), http.StatusFound, "consent")
		return
	}
	if key != "" {
		s.countVisit(key)
	}
	if key != "" && behaviourOf(key) == captcha {
		v := url.Values{"continue": {absoluteURL(r)}, "q": {"EgQKAgICGIqV6s0GIjB"}}
		s.redirect(w, r, "/sorry/index?"+v.Encode(), http.StatusFound, "captcha")
		return
	}
	st, err := s.streamFor(q)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	b, err := s.pages.aiMode(aiModeRequest{query: query, hl: hl, gl: gl, final: q.Get("final") == "1",
		followUps: q["fu"], stream: st, params: streamParams(q)})
	if err != nil {
		s.log.Error("render AI Mode page", "query", query, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	if s.hostile != "" && isHostile(key) {
		b = withHostile(b, s.hostile)
	}
	s.writeHTML(w, r, http.StatusOK, b, "AI Mode")
}

// handleAITurn serves GET /aimode/turn?q=&hl=&n=[&delay=&generating=&pause=]:
// the JSON of turn n (2 for the first follow-up) answering q, for the
// page's follow-up box.
func (s *Server) handleAITurn(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	n, _ := strconv.Atoi(q.Get("n"))
	st, err := s.streamFor(q)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	t := aiTurnFor(q.Get("q"), langOf(q.Get("hl")), max(n, 2), st, false)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	if err := json.NewEncoder(w).Encode(t); err != nil {
		s.log.Warn("write AI Mode turn", "err", err)
	}
}

// aiModeRequest is what an AI Mode page depends on.
type aiModeRequest struct {
	query, hl, gl string
	final         bool
	followUps     []string // final only: the follow-ups already answered
	stream        Stream
	params        url.Values // the stream parameters to pass on
}

// aiMode renders an AI Mode page.
func (p *pages) aiMode(req aiModeRequest) ([]byte, error) {
	w := wordsFor(req.hl)
	d := aiModeData{Query: strings.TrimSpace(req.query), HL: req.hl, GL: req.gl, W: w, Params: req.params}
	switch {
	case aiModeUnavailable(req.gl):
		d.Notice = noticeFor(req.hl)
	case d.Query == "":
	case req.final:
		var sb strings.Builder
		for i, prompt := range append([]string{req.query}, req.followUps...) {
			sb.WriteString(aiTurnFor(prompt, req.hl, i+1, Stream{}, true).Shell)
		}
		d.Turns = template.HTML(sb.String())
	default:
		t := aiTurnFor(req.query, req.hl, 1, req.stream, false)
		d.Turns = template.HTML(t.Shell)
		b, err := json.Marshal(t)
		if err != nil {
			return nil, fmt.Errorf("encode AI Mode stream: %w", err)
		}
		d.Stream = template.JS(b)
	}
	var buf bytes.Buffer
	if err := p.tmpl.ExecuteTemplate(&buf, "aimode.html.tmpl", d); err != nil {
		return nil, fmt.Errorf("render AI Mode page: %w", err)
	}
	return buf.Bytes(), nil
}

// aiModeUnavailable reports whether AI Mode is not offered in country gl.
func aiModeUnavailable(gl string) bool {
	for _, c := range AIModeUnavailable {
		if strings.EqualFold(gl, c) {
			return true
		}
	}
	return false
}

// noticeFor is the "not available" notice in hl's language.
func noticeFor(hl string) string {
	if strings.HasPrefix(strings.ToLower(hl), "fr") {
		return "Le mode IA n'est pas disponible dans votre pays"
	}
	return "AI Mode isn't available in your country"
}

// aiTurnFor returns turn n answering prompt: finished (final) or as a
// busy shell and its chunks, streaming as st says. A prompt containing
// StalledQuery stops streaming half-way; one containing UnknownQuery is
// answered in markup the aimc reading does not know.
func aiTurnFor(prompt, hl string, n int, st Stream, final bool) aiTurn {
	key := NormaliseQuery(prompt)
	w := wordsFor(hl)
	ov := overviewFor(key, hl)
	seed := "aimode|" + strconv.Itoa(n) + "|" + key + "|" + w.Lang
	chunks := overviewChunks(ov, w, seed)
	aside := chunks[len(chunks)-1]
	chunks = append(chunks[:len(chunks)-1:len(chunks)-1], chunk{To: "answer", HTML: relatedBlock(key)}, aside)
	stall := strings.Contains(key, StalledQuery)
	if stall {
		chunks = chunks[:len(chunks)/2]
	}
	column := `data-container-id="main-col" class="mZJni Dn7Fzd"`
	if strings.Contains(key, UnknownQuery) {
		column = `class="nx-main"`
		chunks = []chunk{{To: "answer", HTML: `<p class="nx-p">` + esc(prompt) + ` is answered in markup kisa does not know.</p>`}}
	}
	if !final {
		return aiTurn{Shell: turnShell(prompt, column, true, "", ""), Chunks: chunks, Schedule: st.scheduleOf(len(chunks)),
			Stall: stall, Actions: answerActions}
	}
	answer, side := joinChunks(chunks)
	return aiTurn{Shell: turnShell(prompt, column, stall, string(answer), string(side))}
}

// answerActions are the feedback buttons at the end of a finished answer,
// as the real page shows them in the answer's subtree (icons left out).
const answerActions = `<div class="aim-actions"><button class="aim-act" aria-label="Good response" aria-pressed="false">&#x1F44D;&#xFE0E;</button>` +
	`<button class="aim-act" aria-label="Bad response" aria-pressed="false">&#x1F44E;&#xFE0E;</button></div>`

// relatedBlock is a paragraph that links a page beyond the answer's
// sources, through the engine's redirect.
func relatedBlock(key string) string {
	u := "https://guides.example/" + url.PathEscape(strings.ReplaceAll(key, " ", "-"))
	return `<div style="display: contents"><div class="Y3BBE" data-sfc-cp="">Further reading: <a href="` +
		esc("/url?"+url.Values{"q": {u}, "sa": {"U"}}.Encode()) + `">A guide to ` + esc(key) + `</a>.</div></div>`
}

// turnShell renders one turn: the prompt heading and the aimc subtree
// with the answer in a column of the given attributes and the side panel;
// a busy turn is marked aria-busy and ends in the "Generating..." status
// line; a finished one shows its feedback buttons.
func turnShell(prompt, column string, busy bool, answer, aside string) string {
	attr, status, actions := "", "", answerActions
	if busy {
		attr, status, actions = ` aria-busy="true"`, `<div class="aim-status" role="status" aria-live="polite">`+generatingStatus+`...</div>`, ""
	}
	return `<div class="CKgc1d" data-scope-id="turn"><div class="ilZyRc R7mRQb"><span class="VndcI" role="heading" aria-level="2">` +
		`<span class="iMqumd">You said:</span> <span class="aim-q">` + esc(prompt) + `</span></span></div>` +
		`<div data-subtree="aimc" class="aim-answer"` + attr + `><div class="pWvJNd">` +
		`<div ` + column + `>` + answer + status + `</div>` +
		`<div data-container-id="rhs-col" class="aim-rhs">` + aside + `</div></div>` + actions + `</div></div>`
}

// An AI Mode page whose query contains HostileQuery tries to reach
// Options.HostileTarget as the results page of that query does.

// FinalAIModePage returns the AI Mode page of query in language hl and
// country gl once its answer and those of followUps have streamed in, as
// a browser's document.documentElement.outerHTML shows it: the markup
// that ?udm=50&final=1&fu=... serves. It returns an error only when a page
// template fails, a defect.
//
// Only tests call it: it is kept on purpose although deadcode ./cmd/...
// lists it.
func FinalAIModePage(query, hl, gl string, followUps ...string) (string, error) {
	p, err := newPages()
	if err != nil {
		return "", err
	}
	b, err := p.aiMode(aiModeRequest{query: query, hl: hl, gl: gl, final: true, followUps: followUps})
	return string(b), err
}
