package geo

import (
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// The two uule forms, as the search engine's own links spell them. Their
// "+" stands for itself: Param keeps it unescaped in a query string, where
// it decodes as a space, which the search engine reads alike.
const (
	namePrefix  = "w+"
	pointPrefix = "a+"
)

// uuleRadius is the radius, in the uule's units, of a point's uncertainty:
// the value the search engine's own location links carry.
const uuleRadius = 93000

// EncodeName is the name-based uule of a canonical place name:
// "w+" and the base64 (standard alphabet, unpadded) of the protocol
// buffer {1: 2, 2: 32, 4: name}, which starts "CAIQICI" and a character
// that tells the name's length, e.g. "w+CAIQICINVW5pdGVkIFN0YXRlcw" for
// "United States". name must pass CheckName.
func EncodeName(name string) string {
	msg := []byte{0x08, 0x02, 0x10, 0x20, 0x22}
	msg = appendVarint(msg, uint64(len(name)))
	msg = append(msg, name...)
	return namePrefix + base64.RawStdEncoding.EncodeToString(msg)
}

// appendVarint appends v in protocol buffers' base-128 varint encoding.
func appendVarint(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// EncodeCoordinates is the coordinate-based uule of p as if a device
// located itself at time at: "a+" and the base64 (standard alphabet,
// unpadded) of the text form of the location proto (role 1: current
// location, producer 12: device location, provenance 6, the timestamp in
// microseconds, latitude and longitude in 1e-7 degrees, the radius).
func EncodeCoordinates(p Point, at time.Time) string {
	text := fmt.Sprintf("role:1\nproducer:12\nprovenance:6\ntimestamp:%d\nlatlng{\nlatitude_e7:%d\nlongitude_e7:%d\n}\nradius:%d",
		at.UnixMicro(), e7(p.Latitude), e7(p.Longitude), uuleRadius)
	return pointPrefix + base64.RawStdEncoding.EncodeToString([]byte(text))
}

// UULE is l's uule at time at ("" for the zero Location).
func (l Location) UULE(at time.Time) string {
	switch {
	case l.Point != nil:
		return EncodeCoordinates(*l.Point, at)
	case l.Name != "":
		return EncodeName(l.Name)
	}
	return ""
}

// Param is the query-string parameter "uule=<l's uule>" to append to a
// search URL, with the form's "+" kept as the search engine writes it and
// the rest escaped; "" for the zero Location.
func (l Location) Param(at time.Time) string {
	u := l.UULE(at)
	if u == "" {
		return ""
	}
	return "uule=" + u[:2] + url.QueryEscape(u[2:])
}

// Decode reads either uule form, as a query string decodes it (its "+" may
// have become a space) or not, padded or not, in the standard or the URL
// alphabet. It returns an error when uule is neither form.
func Decode(uule string) (Location, error) {
	if len(uule) < 3 || (uule[1] != '+' && uule[1] != ' ') {
		return Location{}, errors.New("geo: uule is neither w+ nor a+")
	}
	raw, err := decodeBase64(uule[2:])
	if err != nil {
		return Location{}, fmt.Errorf("geo: uule: %w", err)
	}
	switch uule[0] {
	case 'w':
		return decodeName(raw)
	case 'a':
		return decodePoint(string(raw))
	}
	return Location{}, errors.New("geo: uule is neither w+ nor a+")
}

// decodeBase64 decodes s in any of the alphabets and paddings seen in uule
// values.
func decodeBase64(s string) ([]byte, error) {
	s = strings.TrimRight(s, "=")
	if strings.ContainsAny(s, "-_") {
		return base64.RawURLEncoding.DecodeString(s)
	}
	return base64.RawStdEncoding.DecodeString(s)
}

// decodeName reads the protocol buffer of a name-based uule.
func decodeName(msg []byte) (Location, error) {
	const head = "\x08\x02\x10\x20\x22"
	if !strings.HasPrefix(string(msg), head) {
		return Location{}, errors.New("geo: name-based uule without its header")
	}
	rest := msg[len(head):]
	var n uint64
	var shift uint
	for i, b := range rest {
		n |= uint64(b&0x7f) << shift
		shift += 7
		if b < 0x80 {
			rest = rest[i+1:]
			break
		}
		if i == len(rest)-1 || shift > 28 {
			return Location{}, errors.New("geo: name-based uule with a bad length")
		}
	}
	if uint64(len(rest)) != n {
		return Location{}, fmt.Errorf("geo: name-based uule says %d bytes, holds %d", n, len(rest))
	}
	return Location{Name: string(rest)}, nil
}

// decodePoint reads the latitude and longitude of a coordinate-based
// uule's text proto.
func decodePoint(text string) (Location, error) {
	var lat, lng *int64
	for line := range strings.SplitSeq(text, "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil {
			continue
		}
		switch k {
		case "latitude_e7":
			lat = &n
		case "longitude_e7":
			lng = &n
		}
	}
	if lat == nil || lng == nil {
		return Location{}, errors.New("geo: coordinate-based uule without latitude_e7 and longitude_e7")
	}
	return Location{Point: &Point{Latitude: float64(*lat) / 1e7, Longitude: float64(*lng) / 1e7}}, nil
}
