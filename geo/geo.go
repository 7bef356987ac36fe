// Package geo is the place of a visit finer than its country: a canonical
// place name as the search engine's geotargets spell it
// ("Munich,Bavaria,Germany") or a point given by its coordinates, the
// `uule` parameter that tells the search engine either, whether a place
// lies in a country, and the time zone a person there has.
package geo

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxNameBytes bounds a canonical place name. The longest geotarget names
// are under 100 bytes; the bound keeps the name-based uule's length field
// a single byte.
const MaxNameBytes = 120

// Point is a place given by its coordinates, in decimal degrees (WGS 84).
type Point struct {
	Latitude  float64 `json:"latitude"`
	Longitude float64 `json:"longitude"`
}

// Location is a place inside a country: exactly one of Name and Point is
// set, or neither (the zero Location: the whole country). In JSON it is
// either a string (the name) or {"latitude": .., "longitude": ..}.
type Location struct {
	// Name is a canonical place name: comma-separated parts from the
	// place to its country, e.g. "Munich,Bavaria,Germany".
	Name string
	// Point is the place's coordinates.
	Point *Point
}

// IsZero reports whether l names no place.
func (l Location) IsZero() bool { return l.Name == "" && l.Point == nil }

// Key is the identity of l in cache keys: "" for the zero Location, the
// name as given, or the coordinates at the precision the uule carries
// (1e-7 degrees).
func (l Location) Key() string {
	switch {
	case l.Point != nil:
		return fmt.Sprintf("@%d,%d", e7(l.Point.Latitude), e7(l.Point.Longitude))
	case l.Name != "":
		return "name:" + l.Name
	}
	return ""
}

// String is the name, or the coordinates as "lat,lng".
func (l Location) String() string {
	if l.Point != nil {
		return strconv.FormatFloat(l.Point.Latitude, 'f', -1, 64) + "," + strconv.FormatFloat(l.Point.Longitude, 'f', -1, 64)
	}
	return l.Name
}

// MarshalJSON writes the name as a string, a point as an object and the
// zero Location as null.
func (l Location) MarshalJSON() ([]byte, error) {
	switch {
	case l.Point != nil:
		return json.Marshal(l.Point)
	case l.Name != "":
		return json.Marshal(l.Name)
	}
	return []byte("null"), nil
}

// UnmarshalJSON reads a string or a {"latitude", "longitude"} object; null
// is the zero Location. It does not validate: see ParseJSON.
func (l *Location) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case bytes.Equal(b, []byte("null")):
		*l = Location{}
		return nil
	case len(b) > 0 && b[0] == '"':
		*l = Location{}
		return json.Unmarshal(b, &l.Name)
	}
	var p Point
	if err := json.Unmarshal(b, &p); err != nil {
		return fmt.Errorf("location must be a place name or {latitude, longitude}: %w", err)
	}
	*l = Location{Point: &p}
	return nil
}

// Problems maps the parts of a location to what is wrong with them, by
// the JSON path below `location` ("" for the location itself,
// "latitude", "longitude").
type Problems map[string]string

// ParseJSON reads and validates a location in its JSON form: a canonical
// place name (parts separated by commas, none empty, at most MaxNameBytes,
// no control characters), or an object with exactly the numbers latitude
// (-90..90) and longitude (-180..180). It returns the problems found, keyed
// as Problems says; none when the location is valid.
func ParseJSON(raw json.RawMessage) (Location, Problems) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var name string
		if err := json.Unmarshal(raw, &name); err != nil {
			return Location{}, Problems{"": "must be a place name or {latitude, longitude}"}
		}
		if err := CheckName(name); err != nil {
			return Location{}, Problems{"": err.Error()}
		}
		return Location{Name: name}, nil
	}
	var obj map[string]json.RawMessage
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &obj) != nil {
		return Location{}, Problems{"": "must be a place name or {latitude, longitude}"}
	}
	probs := Problems{}
	var p Point
	for k, v := range obj {
		switch k {
		case "latitude":
			p.Latitude = coordinate(probs, k, v, 90)
		case "longitude":
			p.Longitude = coordinate(probs, k, v, 180)
		default:
			probs[k] = "unknown field; allowed: latitude, longitude"
		}
	}
	for _, k := range []string{"latitude", "longitude"} {
		if _, ok := obj[k]; !ok {
			probs[k] = "is required"
		}
	}
	if len(probs) > 0 {
		return Location{}, probs
	}
	return Location{Point: &p}, nil
}

// coordinate reads a number within ±limit degrees, recording a problem
// under name otherwise.
func coordinate(probs Problems, name string, raw json.RawMessage, limit float64) float64 {
	var f float64
	if bytes.Equal(raw, []byte("null")) || json.Unmarshal(raw, &f) != nil {
		probs[name] = "must be a number of decimal degrees"
		return 0
	}
	if math.IsNaN(f) || f < -limit || f > limit {
		probs[name] = fmt.Sprintf("must be from %g to %g degrees", -limit, limit)
	}
	return f
}

// CheckName returns an error saying what is wrong with name as a
// canonical place name: empty, too long, control characters, not UTF-8,
// or an empty part.
func CheckName(name string) error {
	switch {
	case strings.TrimSpace(name) == "":
		return errors.New("must not be empty")
	case len(name) > MaxNameBytes:
		return fmt.Errorf("must be at most %d bytes, got %d", MaxNameBytes, len(name))
	case !utf8.ValidString(name):
		return errors.New("must be UTF-8")
	case strings.IndexFunc(name, unicode.IsControl) >= 0:
		return errors.New("must not contain control characters")
	}
	for part := range strings.SplitSeq(name, ",") {
		if strings.TrimSpace(part) == "" {
			return errors.New(`must be a canonical place name, its parts separated by commas, e.g. "Munich,Bavaria,Germany"`)
		}
	}
	return nil
}

// e7 is degrees as the integer of 1e-7 degrees that uule carries.
func e7(deg float64) int64 { return int64(math.Round(deg * 1e7)) }
