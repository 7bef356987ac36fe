package geo_test

import (
	"encoding/json"
	"net/url"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kisa-dev/kisa/geo"
)

// TestEncodeName checks the name-based encoder against uule values that
// others published with the names they stand for.
func TestEncodeName(t *testing.T) {
	tests := []struct{ name, want string }{
		{"United States", "w+CAIQICINVW5pdGVkIFN0YXRlcw"},
		{"Austin,Texas,United States", "w+CAIQICIaQXVzdGluLFRleGFzLFVuaXRlZCBTdGF0ZXM"},
		{"Chicago,Illinois,United States", "w+CAIQICIeQ2hpY2FnbyxJbGxpbm9pcyxVbml0ZWQgU3RhdGVz"},
		{"Paris,Ile-de-France,France", "w+CAIQICIaUGFyaXMsSWxlLWRlLUZyYW5jZSxGcmFuY2U"},
		{"33773,Florida,United States", "w+CAIQICIbMzM3NzMsRmxvcmlkYSxVbml0ZWQgU3RhdGVz"},
		{"Guarulhos,State of Sao Paulo,Brazil", "w+CAIQICIjR3VhcnVsaG9zLFN0YXRlIG9mIFNhbyBQYXVsbyxCcmF6aWw"},
	}
	for _, tt := range tests {
		if got := geo.EncodeName(tt.name); got != tt.want {
			t.Errorf("EncodeName(%q) = %q, want %q", tt.name, got, tt.want)
		}
		loc, err := geo.Decode(tt.want)
		if err != nil || loc.Name != tt.name {
			t.Errorf("Decode(%q) = %+v, %v; want %q", tt.want, loc, err, tt.name)
		}
	}
}

// TestEncodeCoordinates checks the coordinate-based encoder against uule
// values that others published, at their timestamps (radius 93000).
func TestEncodeCoordinates(t *testing.T) {
	tests := []struct {
		name string
		p    geo.Point
		at   int64 // microseconds
		want string
	}{
		{"Kansas", geo.Point{Latitude: 37.0902400, Longitude: -95.7128910}, 1738341497586000,
			"a+cm9sZToxCnByb2R1Y2VyOjEyCnByb3ZlbmFuY2U6Ngp0aW1lc3RhbXA6MTczODM0MTQ5NzU4NjAwMApsYXRsbmd7CmxhdGl0dWRlX2U3OjM3MDkwMjQwMApsb25naXR1ZGVfZTc6LTk1NzEyODkxMAp9CnJhZGl1czo5MzAwMA"},
		{"Madrid", geo.Point{Latitude: 40.3925458, Longitude: -3.7022942}, 1789481477239000,
			"a+cm9sZToxCnByb2R1Y2VyOjEyCnByb3ZlbmFuY2U6Ngp0aW1lc3RhbXA6MTc4OTQ4MTQ3NzIzOTAwMApsYXRsbmd7CmxhdGl0dWRlX2U3OjQwMzkyNTQ1OApsb25naXR1ZGVfZTc6LTM3MDIyOTQyCn0KcmFkaXVzOjkzMDAw"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := geo.EncodeCoordinates(tt.p, time.UnixMicro(tt.at)); got != tt.want {
				t.Errorf("EncodeCoordinates = %q, want %q", got, tt.want)
			}
			loc, err := geo.Decode(tt.want)
			if err != nil || loc.Point == nil || *loc.Point != tt.p {
				t.Errorf("Decode = %+v, %v; want %+v", loc, err, tt.p)
			}
		})
	}
}

// TestDecodeForms reads uule as query strings deliver it: "+" decoded to a
// space, padded, URL alphabet; and refuses what is neither form.
func TestDecodeForms(t *testing.T) {
	long := "Sankt Johann im Pongau,Salzburg,Austria and some more words to pass sixty-four bytes"
	tests := []struct {
		name, uule string
		want       string // Location.String(); "" for an error
	}{
		{"space for plus", "w CAIQICINVW5pdGVkIFN0YXRlcw", "United States"},
		{"padded", "w+CAIQICINVW5pdGVkIFN0YXRlcw==", "United States"},
		{"long name", geo.EncodeName(long), long},
		{"padded coordinates", "a+cm9sZToxCnByb2R1Y2VyOjEyCnByb3ZlbmFuY2U6Ngp0aW1lc3RhbXA6MTU5MTUyMTI0OTAzNDAwMApsYXRsbmd7CmxhdGl0dWRlX2U3OjM3NDIxMDAwMApsb25naXR1ZGVfZTc6LTEyMjA4NDAwMAp9CnJhZGl1czotMQ==",
			"37.421,-12.2084"},
		{"other prefix", "x+CAIQICINVW5pdGVkIFN0YXRlcw", ""},
		{"not base64", "w+!!!", ""},
		{"wrong length", "w+CAIQICIOVW5pdGVkIFN0YXRlcw", ""},
		{"no coordinates", "a+cm9sZTox", ""},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			loc, err := geo.Decode(tt.uule)
			if tt.want == "" {
				if err == nil {
					t.Errorf("Decode(%q) = %+v, want an error", tt.uule, loc)
				}
				return
			}
			if err != nil || loc.String() != tt.want {
				t.Errorf("Decode(%q) = %q, %v; want %q", tt.uule, loc.String(), err, tt.want)
			}
		})
	}
}

// TestParam keeps the form's "+" and escapes the rest, so that the search
// engine and url.ParseQuery read the same uule back.
func TestParam(t *testing.T) {
	loc := geo.Location{Name: "Zürich,Zurich,Switzerland"}
	p := loc.Param(time.Unix(0, 0))
	if p[:7] != "uule=w+" {
		t.Errorf("Param = %q, want it to start uule=w+", p)
	}
	q, err := url.ParseQuery(p)
	if err != nil {
		t.Fatal(err)
	}
	back, err := geo.Decode(q.Get("uule"))
	if err != nil || back.Name != loc.Name {
		t.Errorf("Decode(ParseQuery(Param)) = %+v, %v; want %q", back, err, loc.Name)
	}
	if (geo.Location{}).Param(time.Unix(0, 0)) != "" {
		t.Error("the zero Location has a uule parameter")
	}
}

// TestParseJSON checks both JSON forms and every problem, by path.
func TestParseJSON(t *testing.T) {
	tests := []struct {
		name, raw string
		want      geo.Location
		problems  geo.Problems
	}{
		{name: "name", raw: `"Munich,Bavaria,Germany"`, want: geo.Location{Name: "Munich,Bavaria,Germany"}},
		{name: "point", raw: `{"latitude": 48.137, "longitude": 11.575}`, want: geo.Location{Point: &geo.Point{Latitude: 48.137, Longitude: 11.575}}},
		{name: "empty name", raw: `"  "`, problems: geo.Problems{"": "must not be empty"}},
		{name: "empty part", raw: `"Munich,,Germany"`, problems: geo.Problems{"": `must be a canonical place name, its parts separated by commas, e.g. "Munich,Bavaria,Germany"`}},
		{name: "control", raw: `"Munich\u0007,Germany"`, problems: geo.Problems{"": "must not contain control characters"}},
		{name: "number", raw: `12`, problems: geo.Problems{"": "must be a place name or {latitude, longitude}"}},
		{name: "null", raw: `null`, problems: geo.Problems{"": "must be a place name or {latitude, longitude}"}},
		{name: "out of range", raw: `{"latitude": 91, "longitude": -181}`, problems: geo.Problems{
			"latitude": "must be from -90 to 90 degrees", "longitude": "must be from -180 to 180 degrees"}},
		{name: "missing and unknown", raw: `{"lat": 1, "longitude": "east"}`, problems: geo.Problems{
			"lat": "unknown field; allowed: latitude, longitude", "latitude": "is required", "longitude": "must be a number of decimal degrees"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, probs := geo.ParseJSON(json.RawMessage(tt.raw))
			if diff := cmp.Diff(tt.problems, probs); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("location (-want +got):\n%s", diff)
			}
		})
	}
}

// TestJSONRoundTrip writes and reads both forms.
func TestJSONRoundTrip(t *testing.T) {
	for _, loc := range []geo.Location{{Name: "Tokyo,Japan"}, {Point: &geo.Point{Latitude: -33.8688, Longitude: 151.2093}}, {}} {
		b, err := json.Marshal(loc)
		if err != nil {
			t.Fatal(err)
		}
		var back geo.Location
		if err := json.Unmarshal(b, &back); err != nil || back.Key() != loc.Key() {
			t.Errorf("%s: round trip = %+v, %v", b, back, err)
		}
	}
}

// TestCheck: a name's last part names the country; a point must lie in
// the country's box.
func TestCheck(t *testing.T) {
	tests := []struct {
		name    string
		loc     geo.Location
		country string
		wantErr bool
	}{
		{"name in country", geo.Location{Name: "Munich,Bavaria,Germany"}, "de", false},
		{"name any case", geo.Location{Name: "Osaka,Osaka,japan"}, "jp", false},
		{"name elsewhere", geo.Location{Name: "Munich,Bavaria,Germany"}, "at", true},
		{"bare country", geo.Location{Name: "United States"}, "us", false},
		{"renamed country", geo.Location{Name: "Istanbul,Istanbul,Turkiye"}, "tr", false},
		{"former name", geo.Location{Name: "Istanbul,Istanbul,Turkey"}, "tr", false},
		{"point in country", geo.Location{Point: &geo.Point{Latitude: 48.137, Longitude: 11.575}}, "de", false},
		{"point elsewhere", geo.Location{Point: &geo.Point{Latitude: 48.137, Longitude: 11.575}}, "jp", true},
		{"point in Hawaii", geo.Location{Point: &geo.Point{Latitude: 21.3069, Longitude: -157.8583}}, "us", false},
		{"point in the Aleutians", geo.Location{Point: &geo.Point{Latitude: 52.9, Longitude: 173.2}}, "us", false},
		{"point in Vienna for the US", geo.Location{Point: &geo.Point{Latitude: 48.2082, Longitude: 16.3738}}, "us", true},
		{"point in a country without box", geo.Location{Point: &geo.Point{Latitude: 0, Longitude: 0}}, "gh", false},
		{"zero location", geo.Location{}, "de", false},
	}
	for _, tt := range tests {
		if err := tt.loc.Check(tt.country); (err != nil) != tt.wantErr {
			t.Errorf("%s: Check(%q) = %v, want error %v", tt.name, tt.country, err, tt.wantErr)
		}
	}
}

// TestTimeZone: the country's zone, and the United States' by state or
// coordinates.
func TestTimeZone(t *testing.T) {
	tests := []struct {
		country string
		loc     geo.Location
		want    string
	}{
		{"de", geo.Location{}, "Europe/Berlin"},
		{"jp", geo.Location{Name: "Osaka,Osaka,Japan"}, "Asia/Tokyo"},
		{"at", geo.Location{}, "Europe/Vienna"},
		{"us", geo.Location{}, "America/New_York"},
		{"us", geo.Location{Name: "Austin,Texas,United States"}, "America/Chicago"},
		{"us", geo.Location{Name: "Boston,Massachusetts,United States"}, "America/New_York"},
		{"us", geo.Location{Point: &geo.Point{Latitude: 37.7749, Longitude: -122.4194}}, "America/Los_Angeles"},
		{"us", geo.Location{Point: &geo.Point{Latitude: 33.4484, Longitude: -112.074}}, "America/Phoenix"},
		{"us", geo.Location{Point: &geo.Point{Latitude: 39.7392, Longitude: -104.9903}}, "America/Denver"},
		{"us", geo.Location{Point: &geo.Point{Latitude: 41.8781, Longitude: -87.6298}}, "America/Chicago"},
		{"us", geo.Location{Point: &geo.Point{Latitude: 21.3069, Longitude: -157.8583}}, "Pacific/Honolulu"},
		{"au", geo.Location{}, "Australia/Sydney"},
		{"au", geo.Location{Name: "Perth,Western Australia,Australia"}, "Australia/Perth"},
		{"au", geo.Location{Point: &geo.Point{Latitude: -27.4698, Longitude: 153.0251}}, "Australia/Brisbane"},
		{"au", geo.Location{Point: &geo.Point{Latitude: -34.9285, Longitude: 138.6007}}, "Australia/Adelaide"},
		{"au", geo.Location{Point: &geo.Point{Latitude: -12.4634, Longitude: 130.8456}}, "Australia/Darwin"},
		{"au", geo.Location{Point: &geo.Point{Latitude: -37.8136, Longitude: 144.9631}}, "Australia/Sydney"},
		{"ca", geo.Location{}, "America/Toronto"},
		{"ca", geo.Location{Name: "Calgary,Alberta,Canada"}, "America/Edmonton"},
		{"ca", geo.Location{Point: &geo.Point{Latitude: 49.2827, Longitude: -123.1207}}, "America/Vancouver"},
		{"ca", geo.Location{Point: &geo.Point{Latitude: 50.4452, Longitude: -104.6189}}, "America/Regina"},
		{"ca", geo.Location{Point: &geo.Point{Latitude: 49.8951, Longitude: -97.1384}}, "America/Winnipeg"},
		{"ca", geo.Location{Point: &geo.Point{Latitude: 45.5019, Longitude: -73.5674}}, "America/Toronto"},
		{"ca", geo.Location{Point: &geo.Point{Latitude: 44.6488, Longitude: -63.5752}}, "America/Halifax"},
		{"ca", geo.Location{Point: &geo.Point{Latitude: 47.5615, Longitude: -52.7126}}, "America/St_Johns"},
		{"zz", geo.Location{}, "UTC"},
	}
	for _, tt := range tests {
		if got := geo.TimeZone(tt.country, tt.loc); got != tt.want {
			t.Errorf("TimeZone(%q, %q) = %q, want %q", tt.country, tt.loc, got, tt.want)
		}
	}
}

// TestZonesLoad: every zone the package hands out is one Go's (and so
// the browser's) time zone database knows.
func TestZonesLoad(t *testing.T) {
	for _, z := range geo.Zones() {
		if _, err := time.LoadLocation(z); err != nil {
			t.Errorf("%s: %v", z, err)
		}
	}
}
