// Package proxies is the browser's ways out to the search engine: the
// per-country proxies of KISA_PROXIES. It parses the setting into pools of
// proxies by country and says which countries a deployment serves. A
// proxy's credentials stay inside its Proxy: its String, its Name and every
// error of this package name the proxy by country, position and host:port
// only.
package proxies

import (
	"fmt"
	"maps"
	"net"
	"net/url"
	"slices"
	"sort"
	"strings"
)

// Any is the country key of the proxies that serve every country without
// proxies of its own.
const Any = "*"

// Proxy is one proxy. Its password is only ever handed to the browser.
type Proxy struct {
	// Country is the ISO 3166-1 alpha-2 code (lower case) or Any.
	Country string
	// Index is the proxy's position in its country's pool, from 0. With the
	// country it names the proxy in Redis.
	Index int
	// Server is scheme://host:port, what Chromium's proxyServer takes.
	Server string
	// Username and Password answer the proxy's 407; empty for none.
	Username, Password string
	// Host is host:port, the proxy's name in logs and metrics.
	Host string
}

// String names the proxy for logs: country, position and host:port.
func (e Proxy) String() string { return fmt.Sprintf("%s#%d %s", e.Country, e.Index, e.Host) }

// Set is the parsed KISA_PROXIES: the pools by country. The zero Set (no
// proxies) serves every country directly.
type Set struct {
	pools map[string][]Proxy
}

// Equal reports whether s and o hold the same proxies in the same order.
func (s Set) Equal(o Set) bool {
	return maps.EqualFunc(s.pools, o.pools, func(a, b []Proxy) bool { return slices.Equal(a, b) })
}

// Empty reports whether no proxy is configured: the browser connects
// directly and every country is served.
func (s Set) Empty() bool { return len(s.pools) == 0 }

// Pool returns the proxies serving country (lower case): its own, else
// those of Any, else none. The slice must not be modified.
func (s Set) Pool(country string) []Proxy {
	if p, ok := s.pools[country]; ok {
		return p
	}
	return s.pools[Any]
}

// Serves reports whether requests for country can be answered: always
// when no proxy is configured.
func (s Set) Serves(country string) bool {
	return s.Empty() || len(s.Pool(country)) > 0
}

// Countries returns the countries with proxies of their own, sorted, and
// whether every country is served (no proxies, or an Any pool).
func (s Set) Countries() (countries []string, all bool) {
	for c := range s.pools {
		if c != Any {
			countries = append(countries, c)
		}
	}
	sort.Strings(countries)
	_, star := s.pools[Any]
	return countries, s.Empty() || star
}

// Parse reads KISA_PROXIES: comma-separated country=url entries such as
// "at=http://host:3128, de=http://user:pass@host:8000, *=http://host:3128".
// Several entries of one country form its pool, in order. Schemes: http,
// https, and socks5 without credentials (Chromium cannot authenticate to
// a SOCKS proxy). An empty string is the empty Set. Its errors name the
// entry by position and never quote it, since it may hold a password.
func Parse(s string) (Set, error) {
	set := Set{pools: map[string][]Proxy{}}
	if strings.TrimSpace(s) == "" {
		return Set{}, nil
	}
	for i, entry := range strings.Split(s, ",") {
		e, err := parseEntry(strings.TrimSpace(entry))
		if err != nil {
			return Set{}, fmt.Errorf("entry %d: %w", i+1, err)
		}
		e.Index = len(set.pools[e.Country])
		set.pools[e.Country] = append(set.pools[e.Country], e)
	}
	return set, nil
}

// parseEntry reads one country=url entry. Its errors quote nothing of
// the URL but its scheme.
func parseEntry(entry string) (Proxy, error) {
	country, raw, ok := strings.Cut(entry, "=")
	country = strings.ToLower(strings.TrimSpace(country))
	switch {
	case !ok:
		return Proxy{}, fmt.Errorf("must be country=url")
	case country != Any && !isCountry(country):
		return Proxy{}, fmt.Errorf("country must be two letters or *")
	}
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return Proxy{}, fmt.Errorf("the proxy is not a URL")
	}
	if err := checkProxyURL(u); err != nil {
		return Proxy{}, err
	}
	e := Proxy{Country: country, Server: u.Scheme + "://" + u.Host, Host: u.Host}
	if u.User != nil {
		e.Username = u.User.Username()
		e.Password, _ = u.User.Password()
	}
	return e, nil
}

// checkProxyURL accepts scheme://[user:pass@]host:port and nothing more.
func checkProxyURL(u *url.URL) error {
	if !slices.Contains([]string{"http", "https", "socks5"}, u.Scheme) {
		return fmt.Errorf("the proxy's scheme must be http, https or socks5, not %q", u.Scheme)
	}
	if u.Scheme == "socks5" && u.User != nil {
		return fmt.Errorf("a socks5 proxy cannot take credentials (Chromium does not authenticate to SOCKS); use an http proxy")
	}
	host, port, err := net.SplitHostPort(u.Host)
	if err != nil || host == "" || port == "" {
		return fmt.Errorf("the proxy must be scheme://host:port")
	}
	if (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("the proxy must be scheme://host:port, without path or query")
	}
	return nil
}

// isCountry reports whether s is two lower-case ASCII letters.
func isCountry(s string) bool {
	return len(s) == 2 && s[0] >= 'a' && s[0] <= 'z' && s[1] >= 'a' && s[1] <= 'z'
}
