package testenv

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// JSONDiff compares two JSON documents by value (numbers kept exact) and
// returns a go-cmp diff, empty when they are equal.
func JSONDiff(tb testing.TB, want, got string) string {
	tb.Helper()
	return cmp.Diff(decodeJSON(tb, want, "want"), decodeJSON(tb, got, "got"))
}

func decodeJSON(tb testing.TB, s, what string) any {
	tb.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		tb.Fatalf("%s is not JSON: %v: %q", what, err, s)
	}
	if dec.More() {
		tb.Fatalf("%s has data after its JSON value: %q", what, s)
	}
	return v
}

// MustJSON encodes v, for building expected bodies.
func MustJSON(tb testing.TB, v any) string {
	tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// Object decodes a JSON object, e.g. the encoded results of an answer.
func Object(tb testing.TB, raw []byte) map[string]any {
	tb.Helper()
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		tb.Fatalf("not a JSON object: %v: %s", err, raw)
	}
	return m
}
