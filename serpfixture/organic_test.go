package serpfixture_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/kisa-dev/kisa/serpfixture"
	"github.com/kisa-dev/kisa/serpfixture/captured"
)

// TestPhoneResults checks what a phone's request gets: the generated
// page's results in the phone's markup (titles div[role=heading], no h3),
// and for a real query the real phone page, while a desktop request gets
// h3 titles and the real desktop page.
func TestPhoneResults(t *testing.T) {
	srv := serpfixture.New(serpfixture.Options{AllowAutomated: true})
	const title = "best hiking boots - Wikipedia"
	phone := getAs(t, srv, "/search?q=best+hiking+boots&final=1", true)
	desktop := getAs(t, srv, "/search?q=best+hiking+boots&final=1", false)
	if !strings.Contains(phone, `role="heading"><div role="link"><span>`+title) || strings.Contains(phone, `<h3 class="LC20lb">`+title) {
		t.Error("the phone's page does not title its results with div[role=heading]")
	}
	if !strings.Contains(desktop, `<h3 class="LC20lb">`+title) {
		t.Error("the desktop page does not title its results with h3")
	}
	for _, c := range []struct {
		phone bool
		name  string
	}{{true, serpfixture.RealPhoneWebQueries["google"]}, {false, captured.WebGoogle}} {
		if got := getAs(t, srv, "/search?q=google", c.phone); got != string(captured.Page(c.name)) {
			t.Errorf("phone %v: served %d bytes, want %s", c.phone, len(got), c.name)
		}
	}
}

// getAs returns the body srv serves for target to a phone or a desktop.
func getAs(tb testing.TB, srv http.Handler, target string, phone bool) string {
	tb.Helper()
	req := httptest.NewRequest(http.MethodGet, target, nil)
	if phone {
		req.Header.Set("Sec-CH-UA-Mobile", "?1")
	}
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		tb.Fatalf("GET %s: status %d", target, rec.Code)
	}
	return rec.Body.String()
}
