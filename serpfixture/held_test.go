package serpfixture_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/kisa-dev/kisa/serpfixture"
)

// TestHeld checks the hold parameter: a results page with it has the held
// image, which is answered (a PNG) after its duration and counted; a page
// without it has none, and a bad duration is answered 400.
func TestHeld(t *testing.T) {
	srv := serpfixture.New(serpfixture.Options{})
	v := url.Values{"q": {"why is the sky blue"}, "hl": {"en"}, serpfixture.ParamHold: {"10ms"}}
	page := get(t, srv, "/search?"+v.Encode(), http.StatusOK)
	const img = `<img src="/held.png?for=10ms"`
	if !strings.Contains(page, img) {
		t.Errorf("page with %s=10ms has no %s", serpfixture.ParamHold, img)
	}
	v.Del(serpfixture.ParamHold)
	if page := get(t, srv, "/search?"+v.Encode(), http.StatusOK); strings.Contains(page, "/held.png") {
		t.Error("page without hold has the held image")
	}
	if png := get(t, srv, "/held.png?for=10ms", http.StatusOK); !strings.HasPrefix(png, "\x89PNG") {
		t.Errorf("held image is not a PNG: %.20q", png)
	}
	get(t, srv, "/held.png?for=soon", http.StatusBadRequest)
	if begun, answered := srv.Held(); begun != 1 || answered != 1 {
		t.Errorf("Held() = %d, %d; want 1, 1", begun, answered)
	}
}
