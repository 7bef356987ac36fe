package geo

import "strings"

// TimeZone returns the IANA time zone of a person in country (ISO 3166-1
// alpha-2, lower case) at l: the country's (see countries), except in the
// United States, Canada and Australia, whose zones are told apart by a
// name's state or province (its second-to-last part) or by a point's
// coordinates. It returns "UTC" for an unknown country.
func TimeZone(code string, l Location) string {
	if z, ok := zoned[code]; ok {
		if zone := z.at(l); zone != "" {
			return zone
		}
	}
	if c, ok := countries[code]; ok {
		return c.zone
	}
	return "UTC"
}

// zones tells the zones of a country with several apart.
type zones struct {
	byRegion map[string]string // by the name canonical place names give the state or province
	byPoint  func(Point) string
}

// at is the zone at l, "" when l does not tell (the zero Location, a name
// without a known region: the country's zone).
func (z zones) at(l Location) string {
	switch {
	case l.Point != nil:
		return z.byPoint(*l.Point)
	case l.Name != "":
		parts := strings.Split(l.Name, ",")
		if len(parts) < 2 {
			return ""
		}
		return z.byRegion[strings.TrimSpace(parts[len(parts)-2])]
	}
	return ""
}

// zoned are the countries whose zones this package tells apart; regions
// not listed have the country's zone. A region split between zones has
// the zone of most of its people, and the points' boundaries are
// meridians, which is right for the large cities of each zone.
var zoned = map[string]zones{
	"us": {byRegion: usStateZones, byPoint: usZoneAt},
	"ca": {byRegion: caProvinceZones, byPoint: caZoneAt},
	"au": {byRegion: auStateZones, byPoint: auZoneAt},
}

// usZoneAt: Hawaii, Alaska, then the four main zones and Arizona.
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

// usStateZones are the states outside the Eastern zone (the country's).
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

// caZoneAt: Pacific, Mountain, Saskatchewan, Central, Eastern, Atlantic,
// Newfoundland, west to east.
func caZoneAt(p Point) string {
	switch {
	case p.Longitude < -120:
		return "America/Vancouver"
	case p.Longitude < -110:
		return "America/Edmonton"
	case p.Longitude < -102 && p.Latitude < 60:
		return "America/Regina"
	case p.Longitude < -89:
		return "America/Winnipeg"
	case p.Longitude < -64.5:
		return "America/Toronto"
	case p.Longitude < -59.5 || p.Latitude < 46.6:
		return "America/Halifax"
	}
	return "America/St_Johns"
}

// caProvinceZones are the provinces and territories outside the Eastern
// zone (the country's).
var caProvinceZones = map[string]string{
	"British Columbia": "America/Vancouver", "Yukon": "America/Whitehorse", "Alberta": "America/Edmonton",
	"Northwest Territories": "America/Yellowknife", "Saskatchewan": "America/Regina", "Manitoba": "America/Winnipeg",
	"Nova Scotia": "America/Halifax", "New Brunswick": "America/Moncton", "Prince Edward Island": "America/Halifax",
	"Newfoundland and Labrador": "America/St_Johns",
}

// auZoneAt: Western Australia, the Northern Territory, South Australia,
// Queensland, then the south-east (the country's zone).
func auZoneAt(p Point) string {
	switch {
	case p.Longitude < 129:
		return "Australia/Perth"
	case p.Longitude < 138 && p.Latitude > -26:
		return "Australia/Darwin"
	case p.Longitude < 141:
		return "Australia/Adelaide"
	case p.Latitude > -28.2:
		return "Australia/Brisbane"
	}
	return "Australia/Sydney"
}

// auStateZones are the states and territories outside the country's zone.
var auStateZones = map[string]string{
	"Western Australia": "Australia/Perth", "Northern Territory": "Australia/Darwin",
	"South Australia": "Australia/Adelaide", "Queensland": "Australia/Brisbane", "Tasmania": "Australia/Hobart",
}
