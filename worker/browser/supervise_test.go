package browser

import (
	"errors"
	"testing"

	"github.com/kisa-dev/kisa"
)

// TestCrashRecovery kills Chromium between visits and during one: the
// visit in the dying browser fails with kisa.Unavailable, the next ones
// succeed in a relaunched browser.
func TestCrashRecovery(t *testing.T) {
	s := newSite(t)
	p := newTestPool(t, func(c *Config) { c.Tabs = 1 })
	visitOK(t, p, s.url("/fast"))

	killBrowser(t, p)
	visitOK(t, p, s.url("/fast"))

	done := s.startHang(t, t.Context(), p)
	killBrowser(t, p)
	if err := <-done; !errors.Is(err, kisa.Unavailable) {
		t.Errorf("visit during the crash: error = %v, want kisa.Unavailable", err)
	}
	visitOK(t, p, s.url("/fast"))
	if got := p.launches.Load(); got != 3 {
		t.Errorf("launched %d browsers, want 3", got)
	}
	if got := profileDirs(t); len(got) != 1 {
		t.Errorf("profile dirs after two crashes = %q, want the live one only", got)
	}
}

// TestRecycle checks that the browser is replaced after RecycleAfter
// visits, with the visits running two at a time.
func TestRecycle(t *testing.T) {
	s := newSite(t)
	p := newTestPool(t, func(c *Config) { c.Tabs, c.RecycleAfter = 2, 2 })
	for round := range 2 {
		for i, err := range visitAll(t, p, s.url("/fast"), 2) {
			if err != nil {
				t.Fatalf("round %d visit %d: %v", round+1, i+1, err)
			}
		}
	}
	visitOK(t, p, s.url("/fast"))
	if got := p.launches.Load(); got != 3 {
		t.Errorf("launched %d browsers for 5 visits with RecycleAfter=2, want 3", got)
	}
	if got := profileDirs(t); len(got) != 1 {
		t.Errorf("profile dirs after recycling = %q, want the live one only", got)
	}
}
