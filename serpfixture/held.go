package serpfixture

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"time"
)

// ParamHold, a Go duration such as "10m", gives a results page (/search)
// an image on the fixture itself, /held.png, which the fixture answers
// only after that long (or when the browser gives up on it): a page whose
// document is ready at once but whose load event waits, as a page with a
// slow third-party host does behind a proxy.
const ParamHold = "hold"

// heldPNG is a transparent 1x1 PNG.
var heldPNG, _ = base64.StdEncoding.DecodeString(
	"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=")

// Held returns how many /held.png requests the fixture has begun and how
// many it has answered (the others are still held, or were given up by
// the browser).
func (s *Server) Held() (begun, answered int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.heldBegun, s.heldAnswered
}

// withHeld adds the held image (see ParamHold) of raw, a duration, to a
// page, before its </body>.
func withHeld(page []byte, raw string) []byte {
	tag := fmt.Sprintf(`<img src="/held.png?%s" width="1" height="1" alt="">`,
		html.EscapeString(url.Values{"for": {raw}}.Encode()))
	i := bytes.LastIndex(page, []byte("</body>"))
	if i < 0 {
		return append(page, tag...)
	}
	out := make([]byte, 0, len(page)+len(tag))
	out = append(out, page[:i]...)
	out = append(out, tag...)
	return append(out, page[i:]...)
}

// handleHeld answers /held.png?for=D after D, or not at all when the
// request is given up first; a bad D is answered 400.
func (s *Server) handleHeld(w http.ResponseWriter, r *http.Request) {
	d, err := time.ParseDuration(r.URL.Query().Get("for"))
	if err != nil || d < 0 {
		http.Error(w, "for: want a duration of 0 or more, such as 10m", http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.heldBegun++
	s.mu.Unlock()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-r.Context().Done():
		return
	case <-t.C:
	}
	s.mu.Lock()
	s.heldAnswered++
	s.mu.Unlock()
	w.Header().Set("Content-Type", "image/png")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(heldPNG)
}
