package client_test

import (
	"encoding/json"
	"testing"

	"github.com/kisa-dev/kisa/client"
	"github.com/kisa-dev/kisa/geo"
)

// TestOverviewRequestPlaces: device and both forms of location go out as
// the API reads them; a request without them names neither.
func TestOverviewRequestPlaces(t *testing.T) {
	tests := []struct {
		req  client.OverviewRequest
		want string
	}{
		{client.OverviewRequest{Query: "q"}, `{"query":"q"}`},
		{client.OverviewRequest{Query: "q", Device: "mobile", Location: &geo.Location{Name: "Munich,Bavaria,Germany"}},
			`{"query":"q","device":"mobile","location":"Munich,Bavaria,Germany"}`},
		{client.OverviewRequest{Query: "q", Location: &geo.Location{Point: &geo.Point{Latitude: 48.137, Longitude: 11.575}}},
			`{"query":"q","location":{"latitude":48.137,"longitude":11.575}}`},
	}
	for _, tt := range tests {
		b, err := json.Marshal(tt.req)
		if err != nil || string(b) != tt.want {
			t.Errorf("Marshal = %s, %v; want %s", b, err, tt.want)
		}
	}
}
