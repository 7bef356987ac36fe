package geo

import "strings"

// TimeZone returns the IANA time zone of a person in country (ISO 3166-1
// alpha-2, lower case) at l: the country's (see countries), except in the
// United States, whose four main zones, Alaska, Hawaii and Arizona are
// told apart by a name's state or a point's coordinates. It returns "UTC"
// for an unknown country.
func TimeZone(code string, l Location) string {
	if code == "us" {
		if z := usZone(l); z != "" {
			return z
		}
	}
	if c, ok := countries[code]; ok {
		return c.zone
	}
	return "UTC"
}

// usZone is the zone of a place in the United States, "" when l does not
// tell (the zero Location, a name without a known state).
func usZone(l Location) string {
	switch {
	case l.Point != nil:
		return usZoneAt(*l.Point)
	case l.Name != "":
		parts := strings.Split(l.Name, ",")
		if len(parts) < 2 {
			return ""
		}
		return usStateZones[strings.TrimSpace(parts[len(parts)-2])]
	}
	return ""
}

// usZoneAt approximates the zone boundaries by meridians, which is right
// for the large cities of each zone.
func usZoneAt(p Point) string {
	switch {
	case p.Latitude < 23:
		return "Pacific/Honolulu"
	case p.Latitude > 51 || p.Longitude > 170:
		return "America/Anchorage"
	case p.Longitude < -114.6:
		return "America/Los_Angeles"
	case p.Longitude < -109.05 && p.Latitude < 37:
		return "America/Phoenix"
	case p.Longitude < -101.5:
		return "America/Denver"
	case p.Longitude < -87:
		return "America/Chicago"
	}
	return "America/New_York"
}

// usStateZones are the states outside the Eastern zone (which the
// country's own zone covers), by the name canonical place names give them;
// a state split between zones has the zone of most of its people.
var usStateZones = map[string]string{
	"California": "America/Los_Angeles", "Washington": "America/Los_Angeles", "Oregon": "America/Los_Angeles",
	"Nevada": "America/Los_Angeles", "Arizona": "America/Phoenix", "Alaska": "America/Anchorage", "Hawaii": "Pacific/Honolulu",
	"Colorado": "America/Denver", "Utah": "America/Denver", "New Mexico": "America/Denver", "Wyoming": "America/Denver",
	"Montana": "America/Denver", "Idaho": "America/Boise",
	"Texas": "America/Chicago", "Illinois": "America/Chicago", "Minnesota": "America/Chicago", "Wisconsin": "America/Chicago",
	"Iowa": "America/Chicago", "Missouri": "America/Chicago", "Arkansas": "America/Chicago", "Louisiana": "America/Chicago",
	"Mississippi": "America/Chicago", "Alabama": "America/Chicago", "Oklahoma": "America/Chicago", "Kansas": "America/Chicago",
	"Nebraska": "America/Chicago", "South Dakota": "America/Chicago", "North Dakota": "America/Chicago", "Tennessee": "America/Chicago",
}
