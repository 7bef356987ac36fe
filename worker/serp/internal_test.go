package serp

import "testing"

// TestCleanURL checks which link addresses are kept and how.
func TestCleanURL(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{name: "plain", in: "https://www.nature.com/articles/x", want: "https://www.nature.com/articles/x"},
		{name: "text fragment dropped", in: "https://a.org/p#:~:text=frogs%20are", want: "https://a.org/p"},
		{name: "other fragment kept", in: "https://a.org/p#part", want: "https://a.org/p#part"},
		{name: "relative", in: "/search?q=x", want: ""},
		{name: "javascript", in: "javascript:void(0)", want: ""},
		{name: "empty", in: "", want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := cleanURL(tt.in); got != tt.want {
				t.Errorf("cleanURL(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestDomainOf checks the domain shown as a source's name.
func TestDomainOf(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{name: "www dropped", in: "https://www.nature.com/a", want: "nature.com"},
		{name: "subdomain kept", in: "https://pmc.ncbi.nlm.nih.gov/articles/PMC1/", want: "pmc.ncbi.nlm.nih.gov"},
		{name: "port and case", in: "http://WWW.Example.org:8080/x", want: "example.org"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := domainOf(tt.in); got != tt.want {
				t.Errorf("domainOf(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestDecodeComment checks the decoding of HTML-escaped Sv6Kpe comments.
func TestDecodeComment(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    int // entries
		wantOK  bool
		wantURL string // of the first entry's record, if any
	}{
		{name: "empty list", in: "Sv6Kpe[]", wantOK: true},
		{name: "full entry", in: `Sv6Kpe[[&quot;u1&quot;,[&quot;It&#39;s T&quot;,&quot;s&quot;,&quot;f&quot;,&quot;https://a.org&quot;,[&quot;A&quot;],&quot;https://a.org/x&quot;],0]]`, want: 1, wantOK: true, wantURL: "https://a.org/x"},
		{name: "short entry", in: `Sv6Kpe[[&quot;u1&quot;,&quot;3&quot;,0,&quot;https://a.org/x&quot;,&quot;f&quot;,&quot;&quot;]]`, want: 1, wantOK: true},
		{name: "not JSON", in: "Sv6Kpe[oops", wantOK: false},
		{name: "object", in: `Sv6Kpe[{"u":0}]`, wantOK: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			entries, ok := decodeComment(tt.in)
			if ok != tt.wantOK || len(entries) != tt.want {
				t.Fatalf("decodeComment = %d entries, %v; want %d, %v", len(entries), ok, tt.want, tt.wantOK)
			}
			if tt.wantURL == "" {
				return
			}
			r, ok := asRecord(entries[0][1])
			if !ok || r.url != tt.wantURL || r.info.title != "It's T" {
				t.Errorf("record = %+v, %v; want URL %q and title \"It's T\"", r, ok, tt.wantURL)
			}
		})
	}
}
