package overview_test

import (
	"testing"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/geo"
	"github.com/kisa-dev/kisa/overview"
)

// TestKeyPlaces: the device and the location are part of the cache key;
// a desktop request for the whole country keeps the key it had before
// either existed, whether its device is said or not, and so
// do a place's spellings that mean the same.
func TestKeyPlaces(t *testing.T) {
	base := overview.Request{Query: "Best  Coffee", Country: "de", Language: "de", Screenshots: true}
	with := func(f func(*overview.Request)) overview.Request { r := base; f(&r); return r }
	munich := geo.Location{Point: &geo.Point{Latitude: 48.137, Longitude: 11.575}}
	distinct := map[string]overview.Request{
		"whole country":   base,
		"mobile":          with(func(r *overview.Request) { r.Device = kisa.DeviceMobile }),
		"place":           with(func(r *overview.Request) { r.Location = geo.Location{Name: "Munich,Bavaria,Germany"} }),
		"other place":     with(func(r *overview.Request) { r.Location = geo.Location{Name: "Berlin,Berlin,Germany"} }),
		"point":           with(func(r *overview.Request) { r.Location = munich }),
		"mobile at point": with(func(r *overview.Request) { r.Location, r.Device = munich, kisa.DeviceMobile }),
		"point 1e-6 apart": with(func(r *overview.Request) {
			r.Location = geo.Location{Point: &geo.Point{Latitude: 48.137001, Longitude: 11.575}}
		}),
	}
	seen := map[string]string{}
	for name, r := range distinct {
		if other, dup := seen[r.Key()]; dup {
			t.Errorf("%s and %s share the key %s", name, other, r.Key())
		}
		seen[r.Key()] = name
	}
	same := []overview.Request{
		with(func(r *overview.Request) { r.Device = kisa.DeviceDesktop }),
		with(func(r *overview.Request) { r.Query = "best coffee" }),
	}
	// The key of before: "ov1-" and the first 16 bytes of the SHA-256 of
	// "best coffee\x00de\x00de\x00true", in hex.
	const want = "ov1-3920717478da9986af6ce0e09ce86a99"
	if base.Key() != want {
		t.Errorf("desktop key %s, want the key of before, %s", base.Key(), want)
	}
	for _, r := range same {
		if r.Key() != want {
			t.Errorf("%+v: key %s, want %s", r, r.Key(), want)
		}
	}
	nearly := with(func(r *overview.Request) {
		r.Location = geo.Location{Point: &geo.Point{Latitude: 48.13700000001, Longitude: 11.575}}
	})
	if nearly.Key() != distinct["point"].Key() {
		t.Error("points the same at the uule's precision have different keys")
	}
}

// TestViewRoundTrip: a job's stored request view gives back the request,
// device and location included.
func TestViewRoundTrip(t *testing.T) {
	r := overview.Request{Query: "q", Country: "us", Language: "en", Device: kisa.DeviceMobile,
		Location: geo.Location{Point: &geo.Point{Latitude: 30.2672, Longitude: -97.7431}}, CacheOn: true, CacheTTL: 60}
	back := r.View().Request()
	if back.Key() != r.Key() || back.Device != kisa.DeviceMobile || back.Location.Key() != r.Location.Key() {
		t.Errorf("round trip = %+v, want %+v", back, r)
	}
	if v := (overview.Request{Query: "q"}).View(); v.Device != kisa.DeviceDesktop || v.Location != nil {
		t.Errorf("view of a request without device = %+v, want desktop and no location", v)
	}
}
