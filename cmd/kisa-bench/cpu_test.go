package main

import (
	"math"
	"os"
	"testing"
	"time"
)

// A wrk report as Debian's wrk 4.1 prints it with --latency.
const wrkReport = `Running 10s test @ http://127.0.0.1:40123/v1/integrations/x
  2 threads and 64 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     3.41ms    1.92ms  31.07ms   81.49%
    Req/Sec     9.45k   612.33    10.91k    70.50%
  Latency Distribution
     50%    3.02ms
     75%    4.10ms
     90%    5.66ms
     99%    9.93ms
  188123 requests in 10.01s, 84.21MB read
  Non-2xx or 3xx responses: 3
Requests/sec:  18794.51
Transfer/sec:      8.41MB
`

func TestParseWrkAndCPUPerRequest(t *testing.T) {
	r, err := parseWrk(wrkReport)
	if err != nil {
		t.Fatal(err)
	}
	if r.Requests != 188123 || r.RPS != 18794.51 || r.P99ms != 9.93 || r.Errors != 3 {
		t.Fatalf("parsed %+v", r)
	}
	before := cpuSample{proc: 10, redis: 2, evalCalls: 1000, evalUsec: 5000}
	after := cpuSample{proc: 20.5, redis: 3.5, evalCalls: 1000 + 188123, evalUsec: 5000 + 188123*7.5}
	r.perRequest(before, after)
	near := func(got, want float64) bool { return math.Abs(got-want) < 0.01 }
	if !near(r.ProcCPUus, 10.5e6/188123) || !near(r.RedisCPUus, 1.5e6/188123) ||
		!near(r.ScriptCalls, 1) || !near(r.ScriptUsec, 7.5) {
		t.Fatalf("per request: %+v", r)
	}
}

func TestProcCPU(t *testing.T) {
	// Spin until this process has used a clock tick or two of CPU.
	deadline := time.Now().Add(5 * time.Second)
	x := 0
	for procCPU(os.Getpid()) < 0.02 && time.Now().Before(deadline) {
		for i := range 1_000_000 {
			x += i
		}
	}
	if got := procCPU(os.Getpid()); got < 0.02 || got > 3600 {
		t.Fatalf("procCPU(self) = %v after spinning (%d)", got, x)
	}
	if got := procCPU(0); got != 0 {
		t.Fatalf("procCPU(0) = %v", got)
	}
}
