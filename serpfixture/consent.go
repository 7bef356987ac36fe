package serpfixture

import (
	"net/http"
	"net/url"
	"strings"
	"time"
)

// consentWords are the strings of the consent page in one language.
type consentWords struct {
	Lang, Title, Intro, Reject, Accept string
	Uses                               []string
}

// consentWordsFor returns the consent page's strings for hl.
func consentWordsFor(hl string) consentWords {
	if isGerman(hl) {
		return consentWords{
			Lang: "de", Title: "Bevor Sie zu Google weitergehen",
			Intro:  "Wir verwenden Cookies und Daten, um:",
			Uses:   []string{"Google-Dienste bereitzustellen und zu warten", "Ausfälle zu beheben und vor Spam, Betrug und Missbrauch zu schützen", "Zielgruppeninteraktionen und Websitestatistiken zu messen"},
			Reject: "Alle ablehnen", Accept: "Alle akzeptieren",
		}
	}
	return consentWords{
		Lang: "en", Title: "Before you continue to Google",
		Intro:  "We use cookies and data to:",
		Uses:   []string{"Deliver and maintain Google services", "Track outages and protect against spam, fraud, and abuse", "Measure audience engagement and site statistics"},
		Reject: "Reject all", Accept: "Accept all",
	}
}

// handleConsent serves the consent interstitial: two forms posting to
// /save, "Reject all" (set_eom=true) and "Accept all" (set_sc, set_aps,
// set_eom=false), each carrying gl, hl and continue.
func (s *Server) handleConsent(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	hl := langOf(q.Get("hl"))
	s.mu.Lock()
	s.consentShown++
	s.mu.Unlock()
	data := struct {
		consentWords
		GL, HL, Continue string
	}{consentWordsFor(hl), q.Get("gl"), hl, q.Get("continue")}
	s.render(w, r, "consent.html.tmpl", data, "consent page")
}

// handleSave records the consent answer in ConsentCookie and sends the
// browser on to continue with 303 See Other. A continue that leaves this
// server is replaced by "/".
func (s *Server) handleSave(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form", http.StatusBadRequest)
		return
	}
	value := consentAccepted
	if r.PostForm.Get("set_eom") == "true" {
		value = consentRejected
	}
	http.SetCookie(w, &http.Cookie{
		Name: ConsentCookie, Value: value, Path: "/",
		MaxAge: int(consentMaxAge.Seconds()), Expires: time.Now().Add(consentMaxAge),
		SameSite: http.SameSiteLaxMode,
	})
	s.redirect(w, r, safeContinue(r, r.PostForm.Get("continue")), http.StatusSeeOther, "consent saved")
}

// hasConsent reports whether r carries ConsentCookie.
func hasConsent(r *http.Request) bool {
	c, err := r.Cookie(ConsentCookie)
	return err == nil && c.Value != ""
}

// safeContinue returns c when it points to this server (a path, or an
// absolute URL with r's host), else "/".
func safeContinue(r *http.Request, c string) string {
	u, err := url.Parse(c)
	switch {
	case err != nil || c == "" || strings.Contains(c, `\`):
		return "/"
	case u.IsAbs():
		if (u.Scheme == "http" || u.Scheme == "https") && u.Host == r.Host {
			return c
		}
		return "/"
	case strings.HasPrefix(c, "/") && !strings.HasPrefix(c, "//"):
		return c
	}
	return "/"
}
