package browser

import (
	"testing"

	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/google/go-cmp/cmp"
)

// TestFollowIntercept checks how the guard tells a followed redirect's
// own request (let through) from the request it leads to (stopped, its
// URL the target), by the redirect's request id or its network id, and
// leaves every other request alone.
func TestFollowIntercept(t *testing.T) {
	const link = "http://127.0.0.1:8090/goto?url=CAES1"
	f := newFollow([]string{link, "http://127.0.0.1:8090/goto?url=CAES2"})
	paused := func(id, network_, redirected, u string) *fetch.EventRequestPaused {
		return &fetch.EventRequestPaused{RequestID: fetch.RequestID(id), NetworkID: network.RequestID(network_),
			RedirectedRequestID: fetch.RequestID(redirected), Request: &network.Request{URL: u}}
	}
	steps := []struct {
		name string
		ev   *fetch.EventRequestPaused
		stop bool
	}{
		{name: "another request", ev: paused("1", "n1", "", "http://127.0.0.1:8090/search?udm=50")},
		{name: "the redirect's request", ev: paused("2", "n2", "", link)},
		{name: "its target, by the redirected request's id", ev: paused("3", "n2", "2", "https://en.wikipedia.org/wiki/Mars"), stop: true},
		{name: "the other redirect's request", ev: paused("4", "n4", "", "http://127.0.0.1:8090/goto?url=CAES2")},
		{name: "its target, by the network id alone", ev: paused("5", "n4", "", "https://www.nasa.gov/mars"), stop: true},
		{name: "a later request of the page", ev: paused("6", "n6", "", "https://www.gstatic.com/x.js")},
	}
	for _, s := range steps {
		if got := f.intercept(s.ev); got != s.stop {
			t.Errorf("%s: stop = %v, want %v", s.name, got, s.stop)
		}
	}
	want := map[string]string{link: "https://en.wikipedia.org/wiki/Mars", "http://127.0.0.1:8090/goto?url=CAES2": "https://www.nasa.gov/mars"}
	if diff := cmp.Diff(want, f.found()); diff != "" {
		t.Errorf("targets (-want +got):\n%s", diff)
	}
}
