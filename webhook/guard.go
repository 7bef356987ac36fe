package webhook

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"syscall"
	"time"
)

// Timeout bounds one delivery: connecting, sending and reading the answer.
const Timeout = 10 * time.Second

// MaxURLLength is the longest webhook URL accepted.
const MaxURLLength = 2048

// Guard decides which webhook URLs and addresses kisa may call. By
// default only https URLs whose every address is public; AllowPrivate
// (KISA_WEBHOOK_ALLOW_PRIVATE, for local use and tests) also allows http
// and loopback or private addresses.
type Guard struct {
	AllowPrivate bool
	// Resolver looks host names up; nil uses net.DefaultResolver.
	Resolver *net.Resolver
}

// CheckURL returns an error, fit to be shown to the client, when raw is
// not a URL kisa may call: not absolute http(s), https required, user
// info, or a host that does not resolve or resolves to a refused address.
func (g Guard) CheckURL(ctx context.Context, raw string) error {
	if len(raw) > MaxURLLength {
		return fmt.Errorf("must be at most %d characters", MaxURLLength)
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.Hostname() == "" {
		return errors.New("must be an absolute https URL")
	}
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && g.AllowPrivate:
	default:
		return errors.New("must be an https URL")
	}
	if u.User != nil {
		return errors.New("must not carry a user name or password")
	}
	addrs, err := g.resolve(ctx, u.Hostname())
	if err != nil {
		return errors.New("host does not resolve")
	}
	for _, a := range addrs {
		if err := g.CheckAddr(a); err != nil {
			return err
		}
	}
	return nil
}

func (g Guard) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	if a, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{a}, nil
	}
	r := g.Resolver
	if r == nil {
		r = net.DefaultResolver
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	return r.LookupNetIP(ctx, "ip", host)
}

// CheckAddr refuses the addresses no webhook may reach: unspecified,
// multicast and broadcast always; loopback, private (RFC 1918, fc00::/7),
// link-local (169.254.0.0/16: cloud metadata, fe80::/10) and shared
// carrier-grade NAT space unless AllowPrivate.
func (g Guard) CheckAddr(a netip.Addr) error {
	a = a.Unmap()
	switch {
	case !a.IsValid(), a.IsUnspecified():
		return errors.New("must not point to an unspecified address")
	case a.IsMulticast(), a == netip.AddrFrom4([4]byte{255, 255, 255, 255}):
		return errors.New("must not point to a multicast or broadcast address")
	case g.AllowPrivate:
		return nil
	case a.IsLoopback():
		return errors.New("must not point to a loopback address")
	case a.IsLinkLocalUnicast(), a.IsLinkLocalMulticast():
		return errors.New("must not point to a link-local address")
	case a.IsPrivate(), cgnat.Contains(a), a.Is4() && a.As4()[0] == 0:
		return errors.New("must not point to a private address")
	}
	return nil
}

var cgnat = netip.MustParsePrefix("100.64.0.0/10")

// control is a net.Dialer Control that refuses every address CheckAddr
// refuses, at connect time, so that a name that resolved to a public
// address when submitted cannot be rebound to a private one.
func (g Guard) control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("webhook: dial %s: %w", address, err)
	}
	if err := g.CheckAddr(ap.Addr()); err != nil {
		return fmt.Errorf("webhook: refused address %s: %w", ap.Addr(), err)
	}
	return nil
}

// Client returns the HTTP client deliveries use: the guard's dialer, no
// proxy, no redirects followed (a 3xx is an answer like any other) and
// Timeout for the whole exchange.
func (g Guard) Client() *http.Client {
	d := &net.Dialer{Timeout: Timeout, Control: g.control, Resolver: g.Resolver}
	return &http.Client{
		Timeout: Timeout,
		Transport: &http.Transport{
			DialContext:         d.DialContext,
			TLSHandshakeTimeout: Timeout,
			MaxIdleConnsPerHost: 2,
			IdleConnTimeout:     30 * time.Second,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}
