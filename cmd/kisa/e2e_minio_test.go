package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/kisa-dev/kisa/serpfixture"
	"github.com/kisa-dev/kisa/testenv"
)

// TestMinIODownMidJob cuts MinIO off from a running worker: a job that
// needs screenshots fails cleanly (503 telling that screenshot storage is
// unavailable, with Retry-After) and leaves nothing in the cache, while a
// job without screenshots still succeeds; once MinIO is back the same
// request visits the page again and succeeds.
func TestMinIODownMidJob(t *testing.T) {
	s3 := newCutProxy(t, testenv.Get("KISA_S3_ENDPOINT", "127.0.0.1:9000"))
	s := startStack(t, stackOptions{waitTimeout: "120s", fixture: serpfixture.Options{OverviewDelay: -1},
		env: []string{"KISA_S3_ENDPOINT=" + s3.addr(), "KISA_JOB_MAX_RETRY=1"}})
	const (
		q     = "screenshots while minio is down"
		shots = `{"query":"` + q + `","languageCode":"en","screenshots":true}`
	)
	s3.cut()

	plain := make(chan string, 1)
	go func() {
		status, out, raw, err := s.tryPost(`{"query":"no screenshots while minio is down","languageCode":"en","screenshots":false}`)
		if err == nil && (status != http.StatusOK || !out.Data.Results.HasOverview) {
			err = fmt.Errorf("status %d, body %s", status, raw)
		}
		plain <- errString(err)
	}()
	res, out, raw := s.post(t, shots)
	if res.StatusCode != http.StatusServiceUnavailable || res.Header.Get("Retry-After") != "15" ||
		out.Error != "screenshot storage is unavailable; try again shortly" {
		t.Errorf("with screenshots, MinIO down: status %d, Retry-After %q, body %s; want 503, 15, screenshot storage is unavailable",
			res.StatusCode, res.Header.Get("Retry-After"), raw)
	}
	if err := <-plain; err != "" {
		t.Errorf("without screenshots, MinIO down: %s; want 200 with the overview", err)
	}
	visits := s.fixture.Visits(q)

	s3.restore()
	s.waitIdle(t)
	again := s.mustOK(t, shots)
	if again.Data.IsCached {
		t.Error("the failed job's answer was cached")
	}
	if n := s.fixture.Visits(q); n != visits+1 {
		t.Errorf("visits after MinIO is back = %d, want %d: one more", n, visits+1)
	}
	s.checkScreenshots(t, again.Data.Results.Screenshots)
}

// cutProxy forwards loopback TCP connections to a shared server (MinIO)
// until the test cuts it, which closes every connection and refuses new
// ones as a stopped server would, without stopping the server other
// tests use.
type cutProxy struct {
	ln     net.Listener
	target string

	mu    sync.Mutex
	down  bool
	conns map[net.Conn]bool
}

// newCutProxy starts a proxy to target, up, closed when the test ends.
func newCutProxy(tb testing.TB, target string) *cutProxy {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	p := &cutProxy{ln: ln, target: target, conns: map[net.Conn]bool{}}
	go p.serve()
	tb.Cleanup(func() { ln.Close(); p.cut() })
	return p
}

func (p *cutProxy) addr() string { return p.ln.Addr().String() }

// cut closes the open connections and refuses new ones.
func (p *cutProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = true
	for c := range p.conns {
		c.Close()
	}
	clear(p.conns)
}

// restore forwards new connections again.
func (p *cutProxy) restore() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = false
}

func (p *cutProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		go p.forward(c)
	}
}

// forward pipes c to the target both ways, unless the proxy is cut.
func (p *cutProxy) forward(c net.Conn) {
	t, err := net.DialTimeout("tcp", p.target, 5*time.Second)
	if err != nil {
		c.Close()
		return
	}
	p.mu.Lock()
	if p.down {
		p.mu.Unlock()
		c.Close()
		t.Close()
		return
	}
	p.conns[c], p.conns[t] = true, true
	p.mu.Unlock()
	go func() { io.Copy(t, c); t.Close() }()
	io.Copy(c, t)
	c.Close()
}
