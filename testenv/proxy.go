package testenv

import (
	"io"
	"net"
	"sync"
	"testing"
)

// Proxy is a loopback TCP proxy of a test's own in front of a shared
// service (Postgres, MinIO, Redis): the test cuts it to make the service
// look down to the processes it runs, without stopping the service that
// other tests use, and restores it to bring the service back.
type Proxy struct {
	ln     net.Listener
	target string

	mu    sync.Mutex
	up    bool
	conns map[net.Conn]struct{}
}

// NewProxy listens on a free loopback port and forwards every connection
// to target (host:port) while up; it starts up when up is true. It is
// closed when the test ends.
func NewProxy(tb testing.TB, target string, up bool) *Proxy {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("proxy: %v", err)
	}
	p := &Proxy{ln: ln, target: target, up: up, conns: map[net.Conn]struct{}{}}
	go p.accept()
	tb.Cleanup(func() { ln.Close(); p.Cut() })
	return p
}

// Addr is the proxy's host:port, to give to the processes under test.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Cut closes every forwarded connection and refuses new ones (they are
// accepted and closed at once), as a stopped server would.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.up = false
	for c := range p.conns {
		c.Close()
	}
	clear(p.conns)
}

// Restore forwards new connections again.
func (p *Proxy) Restore() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.up = true
}

func (p *Proxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		go p.forward(c)
	}
}

// forward pipes c to a new connection to the target, both ways, unless
// the proxy is cut.
func (p *Proxy) forward(c net.Conn) {
	p.mu.Lock()
	up := p.up
	p.mu.Unlock()
	if !up {
		c.Close()
		return
	}
	t, err := net.Dial("tcp", p.target)
	if err != nil {
		c.Close()
		return
	}
	if !p.track(c, t) {
		return
	}
	go func() { io.Copy(t, c); t.Close(); c.Close() }()
	io.Copy(c, t)
	c.Close()
	t.Close()
	p.untrack(c, t)
}

// track notes a forwarded pair so that Cut can close it; it closes both
// and returns false when the proxy was cut meanwhile.
func (p *Proxy) track(conns ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.up {
		for _, c := range conns {
			c.Close()
		}
		return false
	}
	for _, c := range conns {
		p.conns[c] = struct{}{}
	}
	return true
}

func (p *Proxy) untrack(conns ...net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range conns {
		delete(p.conns, c)
	}
}
