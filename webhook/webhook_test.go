package webhook

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"
)

func TestSignAndVerify(t *testing.T) {
	const secret = "whsec_test"
	body := []byte(`{"event":"overview.done"}`)
	at := time.Unix(1700000000, 0)
	header := Sign(secret, at, body)
	if want := "t=1700000000,v1="; !strings.HasPrefix(header, want) || len(header) != len(want)+64 {
		t.Fatalf("Sign = %q, want %s<64 hex>", header, want)
	}
	tests := []struct {
		name   string
		secret string
		header string
		body   []byte
		now    time.Time
		want   error
	}{
		{name: "valid", secret: secret, header: header, body: body, now: at.Add(time.Minute)},
		{name: "valid among several v1", secret: secret, header: "t=1700000000,v1=00ff," + header[len("t=1700000000,"):], body: body, now: at},
		{name: "other secret", secret: "whsec_other", header: header, body: body, now: at, want: ErrMismatch},
		{name: "body changed", secret: secret, header: header, body: []byte(`{"event":"overview.failed"}`), now: at, want: ErrMismatch},
		{name: "timestamp changed", secret: secret, header: strings.Replace(header, "t=1700000000", "t=1700000001", 1), body: body, now: at, want: ErrMismatch},
		{name: "too old", secret: secret, header: header, body: body, now: at.Add(6 * time.Minute), want: ErrTooOld},
		{name: "from the future", secret: secret, header: header, body: body, now: at.Add(-6 * time.Minute), want: ErrTooOld},
		{name: "no timestamp", secret: secret, header: header[len("t=1700000000,"):], body: body, now: at, want: ErrMalformed},
		{name: "no signature", secret: secret, header: "t=1700000000", body: body, now: at, want: ErrMalformed},
		{name: "empty", secret: secret, header: "", body: body, now: at, want: ErrMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := Verify(tt.secret, tt.header, tt.body, tt.now, 5*time.Minute); !errors.Is(err, tt.want) || (tt.want == nil && err != nil) {
				t.Errorf("Verify = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestSignKnownValue(t *testing.T) {
	// echo -n '1700000000.{}' | openssl dgst -sha256 -hmac 'k'
	got := Sign("k", time.Unix(1700000000, 0), []byte("{}"))
	want := "t=1700000000,v1=c6ef4734033cee2367414a0939385eca0397754aa7a59716da7463a9298b5146"
	if got != want {
		t.Errorf("Sign = %q, want %q", got, want)
	}
}

func TestCheckURL(t *testing.T) {
	tests := []struct {
		name    string
		url     string
		private bool
		want    string // "" when allowed
	}{
		{name: "public https", url: "https://93.184.215.14/hook"},
		{name: "public IPv6", url: "https://[2606:4700::1]/hook"},
		{name: "http refused", url: "http://93.184.215.14/hook", want: "must be an https URL"},
		{name: "http allowed with opt-in", url: "http://93.184.215.14/hook", private: true},
		{name: "ftp", url: "ftp://93.184.215.14/", private: true, want: "must be an https URL"},
		{name: "relative", url: "/hook", want: "must be an absolute https URL"},
		{name: "user info", url: "https://u:p@93.184.215.14/", want: "must not carry a user name or password"},
		{name: "loopback", url: "https://127.0.0.1/", want: "must not point to a loopback address"},
		{name: "loopback v6", url: "https://[::1]/", want: "must not point to a loopback address"},
		{name: "loopback mapped v6", url: "https://[::ffff:127.0.0.1]/", want: "must not point to a loopback address"},
		{name: "localhost name", url: "https://localhost/", want: "must not point to a loopback address"},
		{name: "private 10/8", url: "https://10.1.2.3/", want: "must not point to a private address"},
		{name: "private 192.168/16", url: "https://192.168.0.10/", want: "must not point to a private address"},
		{name: "private 172.16/12", url: "https://172.20.0.1/", want: "must not point to a private address"},
		{name: "unique local v6", url: "https://[fd00::1]/", want: "must not point to a private address"},
		{name: "cloud metadata", url: "https://169.254.169.254/latest/meta-data", want: "must not point to a link-local address"},
		{name: "link-local v6", url: "https://[fe80::1]/", want: "must not point to a link-local address"},
		{name: "unspecified", url: "https://0.0.0.0/", private: true, want: "must not point to an unspecified address"},
		{name: "multicast", url: "https://224.0.0.1/", private: true, want: "must not point to a multicast or broadcast address"},
		{name: "loopback with opt-in", url: "http://127.0.0.1:8080/hook", private: true},
		{name: "private with opt-in", url: "https://10.1.2.3/", private: true},
		{name: "unresolvable", url: "https://no-such-host.invalid/", want: "host does not resolve"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Guard{AllowPrivate: tt.private}.CheckURL(context.Background(), tt.url)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("CheckURL(%q) = %q, want %q", tt.url, got, tt.want)
			}
		})
	}
}

// TestClientRefusesAtConnect: the guard's client refuses a loopback
// address when it dials, whatever the URL passed at submission, and
// follows no redirect.
func TestClientRefusesAtConnect(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/redirect" {
			http.Redirect(w, r, "/elsewhere", http.StatusFound)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	if _, err := (Guard{}).Client().Get(srv.URL); err == nil || !strings.Contains(err.Error(), "refused address 127.0.0.1") {
		t.Errorf("guarded GET of a loopback server = %v, want a refusal", err)
	}
	c := Guard{AllowPrivate: true}.Client()
	res, err := c.Get(srv.URL + "/redirect")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusFound {
		t.Errorf("redirect answered %d, want the 302 itself (not followed)", res.StatusCode)
	}
}

func TestCheckAddrCGNAT(t *testing.T) {
	if err := (Guard{}).CheckAddr(netip.MustParseAddr("100.64.1.1")); err == nil {
		t.Error("carrier-grade NAT address allowed")
	}
}
