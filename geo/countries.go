package geo

import (
	"fmt"
	"slices"
	"strings"
)

// country is what the package knows of one country.
type country struct {
	name string // as the last part of canonical place names
	zone string // IANA time zone of most of its people
}

// CountryName returns the name that ends the canonical place names of
// country (ISO 3166-1 alpha-2, any case), e.g. "Germany" for "de", and
// whether the country is known.
func CountryName(code string) (string, bool) {
	c, ok := countries[strings.ToLower(code)]
	return c.name, ok
}

// Check returns an error when l does not lie in country (ISO 3166-1
// alpha-2, lower case), as far as that can be told from l itself: a
// name's last part must be the country's name (CountryName, or an alias
// such as "Turkiye" for "tr"); a point must
// lie in the country's bounding box, for the countries that have one
// (boxes). The error says where l lies instead. The zero Location lies
// everywhere.
func (l Location) Check(code string) error {
	switch {
	case l.Point != nil:
		return checkPoint(*l.Point, code)
	case l.Name != "":
		return checkName(l.Name, code)
	}
	return nil
}

// checkName compares the last part of name with the country's name.
func checkName(name, code string) error {
	parts := strings.Split(name, ",")
	last := strings.TrimSpace(parts[len(parts)-1])
	want, ok := CountryName(code)
	if !ok {
		return fmt.Errorf("cannot be checked against countryCode %q, a country without a known name", code)
	}
	if !strings.EqualFold(last, want) && !slices.ContainsFunc(aliases[code], func(a string) bool { return strings.EqualFold(last, a) }) {
		return fmt.Errorf("names a place in %q, not in %s (countryCode %q); its last part must be %q", last, want, code, want)
	}
	return nil
}

// aliases are other names that end canonical place names of a country:
// the search engine's renamings and spellings seen in its geotargets.
var aliases = map[string][]string{
	"tr": {"Turkiye", "Türkiye"}, "cz": {"Czech Republic"}, "bs": {"The Bahamas"}, "gm": {"The Gambia"},
	"cv": {"Cabo Verde"}, "sz": {"Swaziland"}, "mm": {"Myanmar", "Burma"}, "ci": {"Côte d'Ivoire", "Ivory Coast"},
	"mk": {"Macedonia"}, "va": {"Vatican"}, "ps": {"Palestinian Territories"},
}

// boxTolerance widens every box, in degrees, for coordinates on a border.
const boxTolerance = 0.05

// checkPoint tells whether p lies in one of the country's boxes.
func checkPoint(p Point, code string) error {
	bs, ok := boxes[code]
	if !ok {
		return nil
	}
	for _, b := range bs {
		if b.contains(p) {
			return nil
		}
	}
	name, _ := CountryName(code)
	return fmt.Errorf("lies outside %s (countryCode %q)", name, code)
}

// box is a rectangle of latitudes and longitudes; minLng > maxLng never
// happens (boxes that cross the antimeridian are split in two).
type box struct{ minLat, maxLat, minLng, maxLng float64 }

// contains reports whether p lies in b, widened by boxTolerance.
func (b box) contains(p Point) bool {
	t := boxTolerance
	return p.Latitude >= b.minLat-t && p.Latitude <= b.maxLat+t && p.Longitude >= b.minLng-t && p.Longitude <= b.maxLng+t
}

// boxes are rough bounding boxes (a little generous, from the countries'
// extreme points) of the countries most often asked for; a point in a
// country without one is not checked. Several boxes cover a country whose
// parts lie far apart.
var boxes = map[string][]box{
	"at": {{46.37, 49.02, 9.53, 17.16}},
	"de": {{47.27, 55.06, 5.87, 15.04}},
	"ch": {{45.82, 47.81, 5.96, 10.49}},
	"li": {{47.04, 47.27, 9.47, 9.64}},
	"jp": {{24.0, 45.56, 122.93, 145.82}, {20.42, 27.1, 136.0, 154.0}},
	"us": {{24.4, 49.39, -124.85, -66.88}, {51.2, 71.44, -179.99, -129.98}, {51.2, 53.1, 172.4, 179.99}, {18.9, 22.24, -160.25, -154.8}},
	"gb": {{49.86, 60.86, -8.65, 1.77}},
	"ie": {{51.42, 55.39, -10.48, -5.99}},
	"fr": {{41.33, 51.09, -5.14, 9.56}},
	"be": {{49.49, 51.51, 2.54, 6.41}},
	"nl": {{50.75, 53.56, 3.36, 7.23}},
	"lu": {{49.44, 50.19, 5.73, 6.53}},
	"it": {{35.49, 47.09, 6.62, 18.52}},
	"es": {{35.94, 43.79, -9.3, 4.33}, {27.63, 29.42, -18.17, -13.41}, {35.27, 35.92, -5.39, -2.92}},
	"pt": {{36.96, 42.15, -9.5, -6.19}, {36.93, 39.73, -31.28, -25.01}, {32.4, 33.13, -17.27, -16.26}},
	"dk": {{54.56, 57.75, 8.07, 15.2}},
	"se": {{55.34, 69.06, 11.1, 24.17}},
	"no": {{57.96, 71.19, 4.65, 31.08}},
	"fi": {{59.81, 70.09, 20.55, 31.59}},
	"is": {{63.39, 66.57, -24.55, -13.49}},
	"pl": {{49.0, 54.84, 14.12, 24.15}},
	"cz": {{48.55, 51.06, 12.09, 18.86}},
	"sk": {{47.73, 49.61, 16.83, 22.57}},
	"hu": {{45.74, 48.59, 16.11, 22.9}},
	"si": {{45.42, 46.88, 13.38, 16.61}},
	"hr": {{42.39, 46.56, 13.49, 19.45}},
	"ro": {{43.62, 48.27, 20.26, 29.76}},
	"bg": {{41.23, 44.22, 22.36, 28.61}},
	"gr": {{34.8, 41.75, 19.37, 29.65}},
	"tr": {{35.81, 42.11, 25.66, 44.83}},
	"ua": {{44.38, 52.38, 22.13, 40.23}},
	"ru": {{41.18, 81.86, 19.64, 179.99}, {64.0, 71.6, -179.99, -168.97}},
	"ca": {{41.67, 83.12, -141.0, -52.62}},
	"mx": {{14.53, 32.72, -118.4, -86.7}},
	"br": {{-33.75, 5.27, -73.99, -28.84}},
	"ar": {{-55.06, -21.78, -73.56, -53.64}},
	"cl": {{-55.98, -17.5, -75.7, -66.96}, {-27.2, -27.05, -109.45, -109.22}},
	"co": {{-4.23, 13.4, -81.73, -66.85}},
	"pe": {{-18.35, -0.04, -81.33, -68.65}},
	"au": {{-43.64, -10.06, 112.92, 153.64}, {-31.6, -31.49, 159.04, 159.12}},
	"nz": {{-47.29, -34.39, 166.43, 178.55}, {-44.4, -43.7, -176.9, -176.1}},
	"in": {{6.75, 35.5, 68.16, 97.4}},
	"cn": {{18.16, 53.56, 73.5, 134.77}},
	"kr": {{33.11, 38.61, 124.61, 131.87}},
	"tw": {{21.9, 25.3, 119.31, 122.0}},
	"hk": {{22.15, 22.56, 113.83, 114.44}},
	"sg": {{1.16, 1.47, 103.6, 104.09}},
	"id": {{-11.0, 6.08, 95.01, 141.02}},
	"th": {{5.61, 20.46, 97.34, 105.64}},
	"vn": {{8.56, 23.39, 102.14, 109.47}},
	"ph": {{4.59, 21.12, 116.93, 126.6}},
	"my": {{0.85, 7.36, 99.64, 119.27}},
	"za": {{-34.84, -22.13, 16.45, 32.89}},
	"eg": {{22.0, 31.67, 24.7, 36.9}},
	"ng": {{4.27, 13.89, 2.67, 14.68}},
	"ke": {{-4.68, 5.02, 33.91, 41.91}},
	"il": {{29.49, 33.34, 34.27, 35.9}},
	"ae": {{22.63, 26.08, 51.58, 56.38}},
	"sa": {{16.37, 32.16, 34.57, 55.67}},
}
