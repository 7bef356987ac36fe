package serp

import (
	"testing"
	"time"
)

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
		{name: "empty list", in: "Sv6Kpe[]", wantOK: false},
		{name: "chip comment", in: `TgQPHd||[[&quot;u1&quot;,[&quot;It&#39;s T&quot;,&quot;s&quot;,&quot;f&quot;,&quot;https://a.org&quot;,[&quot;A&quot;],&quot;https://a.org/x&quot;]]]`, want: 1, wantOK: true, wantURL: "https://a.org/x"},
		{name: "chip comment with ids", in: `TgQPHdux8vic_r/gLtYT|ux8vic_9/a3u5we|[[&quot;u1&quot;,[&quot;It&#39;s T&quot;,&quot;s&quot;,&quot;f&quot;,&quot;https://a.org&quot;,[&quot;A&quot;],&quot;/goto?url=CAES1&quot;]]]`, want: 1, wantOK: true, wantURL: "https://www.google.com/goto?url=CAES1"},
		{name: "empty chip comment", in: "TgQPHd|||[]", wantOK: false},
		{name: "full entry", in: `Sv6Kpe[[&quot;u1&quot;,[&quot;It&#39;s T&quot;,&quot;s&quot;,&quot;f&quot;,&quot;https://a.org&quot;,[&quot;A&quot;],&quot;https://a.org/x&quot;],0]]`, want: 1, wantOK: true, wantURL: "https://a.org/x"},
		{name: "short entry", in: `Sv6Kpe[[&quot;u1&quot;,&quot;3&quot;,0,&quot;https://a.org/x&quot;,&quot;f&quot;,&quot;&quot;]]`, want: 1, wantOK: true},
		{name: "not JSON", in: "Sv6Kpe[oops", wantOK: false},
		{name: "object", in: `Sv6Kpe[{"u":0}]`, wantOK: false},
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
			p, err := parseAt("<html></html>", EngineOrigin)
			if err != nil {
				t.Fatal(err)
			}
			r, ok := p.asRecord(entries[0][1])
			if !ok || r.link.url != tt.wantURL || r.info.title != "It's T" {
				t.Errorf("record = %+v, %v; want URL %q and title \"It's T\"", r, ok, tt.wantURL)
			}
		})
	}
}

// TestLinkOf checks where an answer's links lead: direct, through the
// engine's /url?q= redirect, or its opaque /goto redirect, relative to
// the page's address.
func TestLinkOf(t *testing.T) {
	tests := []struct {
		name, base, href string
		want             link
	}{
		{name: "direct", base: EngineOrigin, href: "https://a.org/x#:~:text=y", want: link{url: "https://a.org/x"}},
		{name: "redirect with target", base: EngineOrigin, href: "/url?q=https://a.org/x&sa=U", want: link{url: "https://a.org/x"}},
		{name: "opaque redirect", base: EngineOrigin, href: "/goto?url=CAESfw", want: link{url: "https://www.google.com/goto?url=CAESfw", opaque: true}},
		{name: "opaque redirect, absolute", base: EngineOrigin, href: "https://www.google.de/goto?url=CAES", want: link{url: "https://www.google.de/goto?url=CAES", opaque: true}},
		{name: "opaque redirect of the visited host", base: "http://127.0.0.1:8090/search?udm=50", href: "/goto?url=t1", want: link{url: "http://127.0.0.1:8090/goto?url=t1", opaque: true}},
		{name: "goto without token", base: EngineOrigin, href: "/goto", want: link{}},
		{name: "fragment", base: EngineOrigin, href: "#top", want: link{}},
		{name: "script", base: EngineOrigin, href: "javascript:void(0)", want: link{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := parseAt("<p></p>", tt.base)
			if err != nil {
				t.Fatal(err)
			}
			if got := p.linkOf(tt.href); got != tt.want {
				t.Errorf("linkOf(%q) = %+v, want %+v", tt.href, got, tt.want)
			}
		})
	}
}

// TestShownDate checks the dates a card shows, and DateAt's reading of
// those only the visit's time can place.
func TestShownDate(t *testing.T) {
	at := time.Date(2026, 8, 27, 9, 30, 0, 0, time.UTC)
	tests := []struct {
		in, want, wantAt string
	}{
		{in: "Aug 21, 2026", want: "2026-08-21", wantAt: "2026-08-21"},
		{in: "August 21, 2026 — The beta channel", want: "2026-08-21", wantAt: "2026-08-21"},
		{in: "21 Aug 2026", want: "2026-08-21", wantAt: "2026-08-21"},
		{in: "Sept 3, 2025", want: "2025-09-03", wantAt: "2025-09-03"},
		{in: "2026-02-28", want: "2026-02-28", wantAt: "2026-02-28"},
		{in: "Feb 30, 2026", want: "", wantAt: ""},
		{in: "3 days ago", want: "3 days ago", wantAt: "2026-08-24"},
		{in: "an hour ago — Reuters", want: "an hour ago", wantAt: "2026-08-27"},
		{in: "2 weeks ago", want: "2 weeks ago", wantAt: "2026-08-13"},
		{in: "Aug 21", want: "Aug 21", wantAt: "2026-08-21"},
		{in: "Dec 24", want: "Dec 24", wantAt: "2025-12-24"},
		{in: "May 5 things to know", want: "", wantAt: ""},
		{in: "Nature", want: "", wantAt: ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got := shownDate(tt.in)
			if got != tt.want {
				t.Fatalf("shownDate(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if at := DateAt(got, at); at != tt.wantAt {
				t.Errorf("DateAt(%q) = %q, want %q", got, at, tt.wantAt)
			}
		})
	}
}
