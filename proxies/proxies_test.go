package proxies

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name, in string
		want     map[string][]Proxy
	}{
		{"empty", "", nil},
		{"blank", "  ", nil},
		{"one", "at=http://10.0.0.1:3128", map[string][]Proxy{
			"at": {{Country: "at", Server: "http://10.0.0.1:3128", Host: "10.0.0.1:3128"}},
		}},
		{"pool, credentials, any", " DE=http://u:p%40ss@gate.example.com:7000 , de=https://h2:443,*=socks5://s:1080", map[string][]Proxy{
			"de": {
				{Country: "de", Server: "http://gate.example.com:7000", Username: "u", Password: "p@ss", Host: "gate.example.com:7000"},
				{Country: "de", Index: 1, Server: "https://h2:443", Host: "h2:443"},
			},
			"*": {{Country: "*", Server: "socks5://s:1080", Host: "s:1080"}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got.pools); diff != "" {
				t.Errorf("pools (-want +got):\n%s", diff)
			}
		})
	}
}

// TestParseErrors checks that each bad entry is named by its position,
// and that no error quotes a password.
func TestParseErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"at", "entry 1: must be country=url"},
		{"at=http://h:1,austria=http://h:1", "entry 2: country must be two letters or *"},
		{"at=ftp://u:secretpw@h:1", `entry 1: the proxy's scheme must be http, https or socks5, not "ftp"`},
		{"at=socks5://u:secretpw@h:1080", "entry 1: a socks5 proxy cannot take credentials (Chromium does not authenticate to SOCKS); use an http proxy"},
		{"at=http://u:secretpw@h", "entry 1: the proxy must be scheme://host:port"},
		{"at=http://u:secretpw@h:1/path", "entry 1: the proxy must be scheme://host:port, without path or query"},
		{"at=http://u:secret pw@h:1%zz", "entry 1: the proxy is not a URL"},
	}
	for _, tt := range tests {
		_, err := Parse(tt.in)
		if err == nil || err.Error() != tt.want {
			t.Errorf("Parse(%q) = %v, want %q", tt.in, err, tt.want)
		}
		if err != nil && strings.Contains(err.Error(), "secret") {
			t.Errorf("Parse(%q): the error shows the password: %v", tt.in, err)
		}
	}
}

func TestServes(t *testing.T) {
	only, _ := Parse("at=http://h:1,de=http://h:2")
	star, _ := Parse("at=http://h:1,*=http://h:2")
	tests := []struct {
		name      string
		set       Set
		country   string
		serves    bool
		countries []string
		all       bool
	}{
		{"no proxies", Set{}, "fr", true, nil, true},
		{"own proxy", only, "de", true, []string{"at", "de"}, false},
		{"no proxy", only, "fr", false, []string{"at", "de"}, false},
		{"any", star, "fr", true, []string{"at"}, true},
	}
	for _, tt := range tests {
		countries, all := tt.set.Countries()
		got := []any{tt.set.Serves(tt.country), countries, all}
		if diff := cmp.Diff([]any{tt.serves, tt.countries, tt.all}, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
	if e := only.Pool("at")[0]; e.String() != "at#0 h:1" {
		t.Errorf("String = %q", e.String())
	}
}
