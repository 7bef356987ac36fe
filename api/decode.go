package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/kisa-dev/kisa"
)

// maxJSONDepth bounds how deeply a request body may nest objects and
// arrays; the deepest body the API takes today nests 4 levels.
const maxJSONDepth = 16

// notObject is the answer to a body that is not one JSON object.
const notObject = "request body must be a JSON object"

// decodeJSONObject is the one decoder of every JSON request body. It
// refuses, each with a 400 naming the problem and where it is: bytes that
// are not UTF-8, a lone UTF-16 surrogate escape, a key repeated in one
// object (also when spelt with escapes), nesting deeper than maxJSONDepth,
// anything after the value, and a value that is not an object. It returns
// the object's members, undecoded, for the endpoint's own validation.
func decodeJSONObject(body []byte) (map[string]json.RawMessage, error) {
	if !utf8.Valid(body) {
		return nil, kisa.Failf(kisa.BadRequest, "request body is not valid UTF-8 (at byte %d)", invalidUTF8At(body))
	}
	if err := checkJSONSyntax(body); err != nil {
		return nil, err
	}
	// The body is now one object of valid, unique, shallow JSON, on which
	// every decoder agrees.
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil || top == nil {
		return nil, kisa.Failf(kisa.BadRequest, notObject)
	}
	return top, nil
}

// checkJSONSyntax walks body token by token with jsontext, which refuses
// duplicate keys and lone surrogates by design, and bounds the depth.
func checkJSONSyntax(body []byte) error {
	dec := jsontext.NewDecoder(bytes.NewReader(body))
	for first := true; first || dec.StackDepth() > 0; first = false {
		tok, err := dec.ReadToken()
		if err == io.EOF && first {
			return kisa.Failf(kisa.BadRequest, notObject)
		}
		if err != nil {
			return syntaxProblem(body, dec, err)
		}
		if first && tok.Kind() != '{' {
			return kisa.Failf(kisa.BadRequest, notObject)
		}
		if dec.StackDepth() > maxJSONDepth {
			return kisa.Failf(kisa.BadRequest, "request body nests deeper than %d levels (at byte %d)",
				maxJSONDepth, dec.InputOffset()-1)
		}
	}
	if rest := bytes.TrimLeft(body[dec.InputOffset():], " \t\r\n"); len(rest) > 0 {
		return kisa.Failf(kisa.BadRequest, "request body has data after its JSON value (at byte %d)", len(body)-len(rest))
	}
	return nil
}

// syntaxProblem turns a jsontext error into a 400 that names the problem.
func syntaxProblem(body []byte, dec *jsontext.Decoder, err error) error {
	var se *jsontext.SyntacticError
	if !errors.As(err, &se) {
		return kisa.Failf(kisa.BadRequest, "request body is not valid JSON")
	}
	at := se.ByteOffset
	switch {
	case errors.Is(se.Err, jsontext.ErrDuplicateName):
		return kisa.Failf(kisa.BadRequest, "request body has the key %q twice", shorten(dottedPath(dec, se.JSONPointer)))
	case loneSurrogate(body, at):
		return kisa.Failf(kisa.BadRequest, "request body has a lone UTF-16 surrogate %s at byte %d%s",
			body[at:at+6], at, within(dec, se.JSONPointer))
	case at >= 0 && at < int64(len(body)) && body[at] < ' ':
		return kisa.Failf(kisa.BadRequest, "request body has an unescaped control character at byte %d%s",
			at, within(dec, se.JSONPointer))
	case errors.Is(se.Err, io.ErrUnexpectedEOF):
		return kisa.Failf(kisa.BadRequest, "request body ends inside its JSON value (at byte %d)", len(body))
	}
	return kisa.Failf(kisa.BadRequest, "request body is not valid JSON (at byte %d)", at)
}

// loneSurrogate reports whether body holds, at at, an escaped UTF-16
// surrogate (\ud800 to \udfff): jsontext refuses one only when it is not
// part of a valid pair.
func loneSurrogate(body []byte, at int64) bool {
	if at < 0 || at+6 > int64(len(body)) || body[at] != '\\' || body[at+1] != 'u' {
		return false
	}
	v, err := strconv.ParseUint(string(body[at+2:at+6]), 16, 16)
	return err == nil && utf16.IsSurrogate(rune(v))
}

// within names the field a problem is in, if any.
func within(dec *jsontext.Decoder, ptr jsontext.Pointer) string {
	if path := dottedPath(dec, ptr); path != "" {
		return fmt.Sprintf(" (in %q)", shorten(path))
	}
	return ""
}

// dottedPath writes a JSON pointer the way 422 field paths are written:
// cache.ttl, fields.sources[1]. The decoder's stack tells array indices
// from object keys.
func dottedPath(dec *jsontext.Decoder, ptr jsontext.Pointer) string {
	var b strings.Builder
	level := 0
	for tok := range ptr.Tokens() {
		level++
		switch {
		case inArray(dec, level):
			fmt.Fprintf(&b, "[%s]", tok)
		case level > 1:
			b.WriteString("." + tok)
		default:
			b.WriteString(tok)
		}
	}
	return b.String()
}

// maxPathChars bounds a field path quoted in a message: keys are the
// client's text, up to a whole body long.
const maxPathChars = 100

// shorten cuts path to maxPathChars characters, marking the cut with "...".
func shorten(path string) string {
	if utf8.RuneCountInString(path) <= maxPathChars {
		return path
	}
	return string([]rune(path)[:maxPathChars]) + "..."
}

// inArray reports whether the decoder's stack level is an array.
func inArray(dec *jsontext.Decoder, level int) bool {
	if level > dec.StackDepth() {
		return false
	}
	kind, _ := dec.StackIndex(level)
	return kind == '['
}

// invalidUTF8At returns the offset of the first byte of body that is not
// part of valid UTF-8.
func invalidUTF8At(body []byte) int {
	for i := 0; i < len(body); {
		r, n := utf8.DecodeRune(body[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(body)
}

// hasControl reports whether s holds a control character (Unicode Cc:
// C0, DEL, C1). Tabs and newlines of a query are folded to spaces before.
func hasControl(s string) bool {
	return strings.ContainsFunc(s, unicode.IsControl)
}
