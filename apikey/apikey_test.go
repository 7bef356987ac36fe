package apikey_test

import (
	"crypto/sha256"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kisa-dev/kisa/apikey"
)

var keyShape = regexp.MustCompile(`^kisa_[0-9a-f]{16}[A-Za-z0-9_-]{43}$`)

func TestNew(t *testing.T) {
	seen := map[string]bool{}
	for range 50 {
		k, err := apikey.New("kisa")
		if err != nil {
			t.Fatal(err)
		}
		if !keyShape.MatchString(k.Plain) {
			t.Fatalf("key %q does not have the shape kisa_<16 hex><43 base64url>", k.Plain)
		}
		if seen[k.Plain] || seen[k.Lookup] {
			t.Fatalf("key or lookup repeated: %q", k.Plain)
		}
		seen[k.Plain], seen[k.Lookup] = true, true
		lookup, secret, ok := apikey.Parse("kisa", k.Plain)
		if !ok || lookup != k.Lookup {
			t.Fatalf("Parse(%q) = %q, %v; want lookup %q", k.Plain, lookup, ok, k.Lookup)
		}
		if want := sha256.Sum256([]byte(secret)); !cmp.Equal(k.Hash, want[:]) {
			t.Fatalf("Hash is not the SHA-256 of the secret part")
		}
		if !apikey.Matches(secret, k.Hash) {
			t.Fatalf("Matches(secret, Hash) = false")
		}
	}
}

func TestParse(t *testing.T) {
	k, err := apikey.New("kisa")
	if err != nil {
		t.Fatal(err)
	}
	body := strings.TrimPrefix(k.Plain, "kisa_")
	tests := []struct {
		name   string
		prefix string
		token  string
		want   bool
	}{
		{name: "a key", prefix: "kisa", token: k.Plain, want: true},
		{name: "other prefix", prefix: "acme", token: k.Plain},
		{name: "prefix without underscore", prefix: "kisa", token: "kisa" + body},
		{name: "prefix with a dash", prefix: "kisa", token: "kisa-" + body},
		{name: "no prefix", prefix: "kisa", token: body},
		{name: "prefix in upper case", prefix: "kisa", token: "KISA_" + body},
		{name: "too short", prefix: "kisa", token: k.Plain[:len(k.Plain)-1]},
		{name: "too long", prefix: "kisa", token: k.Plain + "A"},
		{name: "lookup not hex", prefix: "kisa", token: "kisa_" + "g" + body[1:]},
		{name: "lookup in upper case", prefix: "kisa", token: "kisa_" + strings.ToUpper(body[:16]) + body[16:]},
		{name: "secret not base64url", prefix: "kisa", token: "kisa_" + body[:58] + "="},
		{name: "secret with standard base64", prefix: "kisa", token: "kisa_" + body[:58] + "/"},
		{name: "secret with a line break", prefix: "kisa", token: "kisa_" + body[:57] + "\r\n"},
		{name: "secret with a space", prefix: "kisa", token: "kisa_" + body[:58] + " "},
		{name: "empty", prefix: "kisa", token: ""},
		{name: "only the prefix", prefix: "kisa", token: "kisa_"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lookup, secret, ok := apikey.Parse(tt.prefix, tt.token)
			if ok != tt.want {
				t.Fatalf("Parse(%q, %q) ok = %v, want %v", tt.prefix, tt.token, ok, tt.want)
			}
			if !ok && (lookup != "" || secret != "") {
				t.Errorf("refused key returned parts %q, %q", lookup, secret)
			}
			if ok && lookup+secret != body {
				t.Errorf("lookup+secret = %q, want %q", lookup+secret, body)
			}
		})
	}
}

func TestMatches(t *testing.T) {
	k, err := apikey.New("kisa")
	if err != nil {
		t.Fatal(err)
	}
	_, secret, _ := apikey.Parse("kisa", k.Plain)
	other := []byte(secret)
	other[0] ^= 1
	tests := []struct {
		name   string
		secret string
		hash   []byte
		want   bool
	}{
		{name: "right secret", secret: secret, hash: k.Hash, want: true},
		{name: "one bit off", secret: string(other), hash: k.Hash},
		{name: "empty secret", secret: "", hash: k.Hash},
		{name: "the hash itself", secret: string(k.Hash), hash: k.Hash},
		{name: "no stored hash", secret: secret, hash: nil},
		{name: "truncated hash", secret: secret, hash: k.Hash[:16]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := apikey.Matches(tt.secret, tt.hash); got != tt.want {
				t.Errorf("Matches = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestScopes(t *testing.T) {
	want := []string{"knowledgebase:read", "integrations:read", "secrets:read", "overview:run", "completions:run", "monitors", "observations:read", "usage:read"}
	if diff := cmp.Diff(want, apikey.AllScopes()); diff != "" {
		t.Errorf("AllScopes (-want +got):\n%s", diff)
	}
	tests := []struct {
		name  string
		scope string
		want  bool
	}{
		{name: "known", scope: "secrets:read", want: true},
		{name: "upper case", scope: "SECRETS:READ"},
		{name: "write", scope: "secrets:write"},
		{name: "empty", scope: ""},
		{name: "wildcard", scope: "*"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := apikey.ValidScope(tt.scope); got != tt.want {
				t.Errorf("ValidScope(%q) = %v, want %v", tt.scope, got, tt.want)
			}
		})
	}
}

// TestCheckAllocatesNothing: parsing a presented key and checking its
// secret run on every request, and allocate nothing.
func TestCheckAllocatesNothing(t *testing.T) {
	k, err := apikey.New("kisa")
	if err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(100, func() {
		_, secret, ok := apikey.Parse("kisa", k.Plain)
		if !ok || !apikey.Matches(secret, k.Hash) {
			t.Fatal("the key does not check")
		}
	})
	if allocs != 0 {
		t.Errorf("Parse and Matches allocate %v times, want 0", allocs)
	}
}
