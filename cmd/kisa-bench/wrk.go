package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// wrkRun is what one wrk run measured.
type wrkRun struct {
	RPS      float64 `json:"rps"`
	P99ms    float64 `json:"p99_ms"`
	Errors   int     `json:"errors"` // non-2xx answers and socket errors
	Requests int     `json:"requests"`
	// What one request cost, in CPU microseconds: the server process
	// (kisa web or the bare baseline) and the Redis server; and the calls
	// of a Redis script (the limiter's) per request, with Redis's own
	// time per call (INFO commandstats). Zero when not measured.
	ProcCPUus   float64 `json:"proc_cpu_us,omitempty"`
	RedisCPUus  float64 `json:"redis_cpu_us,omitempty"`
	ScriptCalls float64 `json:"script_calls,omitempty"`
	ScriptUsec  float64 `json:"script_us_per_call,omitempty"`
}

// wrkTarget is one side of an A/B: a URL, its headers, and for a POST
// its body.
type wrkTarget struct {
	URL     string
	Headers []string
	Body    string // non-empty: POST with this JSON body
	PID     int    // the server process, whose CPU time the run counts
}

// wrk runs Debian's wrk against t with 64 connections for d.
func (s *suite) wrk(t wrkTarget, d time.Duration) (wrkRun, error) {
	args := []string{"-t2", "-c64", "-d" + strconv.Itoa(int(d.Seconds())) + "s", "--latency"}
	for _, h := range t.Headers {
		args = append(args, "-H", h)
	}
	if t.Body != "" {
		script := filepath.Join(s.dir, "post.lua")
		lua := fmt.Sprintf("wrk.method = \"POST\"\nwrk.body = %q\nwrk.headers[\"Content-Type\"] = \"application/json\"\n", t.Body)
		if err := os.WriteFile(script, []byte(lua), 0o644); err != nil {
			return wrkRun{}, err
		}
		args = append(args, "-s", script)
	}
	ctx, cancel := context.WithTimeout(s.ctx, d+time.Minute)
	defer cancel()
	before := sampleCPU(ctx, s.rdb, t.PID)
	out, err := exec.CommandContext(ctx, "wrk", append(args, t.URL)...).CombinedOutput()
	if err != nil {
		return wrkRun{}, fmt.Errorf("wrk (apt-get install wrk; make services does it): %w: %s", err, out)
	}
	after := sampleCPU(ctx, s.rdb, t.PID)
	r, err := parseWrk(string(out))
	r.perRequest(before, after)
	return r, err
}

var (
	wrkRPS    = regexp.MustCompile(`Requests/sec:\s+([0-9.]+)`)
	wrkReqs   = regexp.MustCompile(`(\d+) requests in `)
	wrkP99    = regexp.MustCompile(`\s99%\s+([0-9.]+)(us|ms|s)`)
	wrkNon2xx = regexp.MustCompile(`Non-2xx or 3xx responses:\s+(\d+)`)
	wrkSock   = regexp.MustCompile(`Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)`)
)

// parseWrk reads wrk's --latency report.
func parseWrk(out string) (wrkRun, error) {
	m := wrkRPS.FindStringSubmatch(out)
	p := wrkP99.FindStringSubmatch(out)
	if m == nil || p == nil {
		return wrkRun{}, fmt.Errorf("unexpected wrk output: %s", out)
	}
	var r wrkRun
	r.RPS, _ = strconv.ParseFloat(m[1], 64)
	if n := wrkReqs.FindStringSubmatch(out); n != nil {
		r.Requests, _ = strconv.Atoi(n[1])
	}
	v, _ := strconv.ParseFloat(p[1], 64)
	r.P99ms = v * map[string]float64{"us": 0.001, "ms": 1, "s": 1000}[p[2]]
	if e := wrkNon2xx.FindStringSubmatch(out); e != nil {
		n, _ := strconv.Atoi(e[1])
		r.Errors += n
	}
	if e := wrkSock.FindStringSubmatch(out); e != nil {
		for _, f := range e[1:] {
			n, _ := strconv.Atoi(strings.TrimSpace(f))
			r.Errors += n
		}
	}
	return r, nil
}
