// Command memprobe measures the memory of one `kisa worker` process and
// its Chromium processes under a small load, for the sizing advice in docs/operations.md:
// for each tab count it starts the worker against the fixture search
// engine, keeps one task per tab in flight (with screenshots), samples
// the proportional set size (PSS, shared pages split among the processes
// that share them) of the worker and every process below it, and prints
// a table. It needs the backing services of `make services` (REDIS_URL,
// KISA_S3_*). Run it with `make memory`; it is a tool, not a test.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"github.com/kisa-dev/kisa/jobs"
	"github.com/kisa-dev/kisa/serpfixture"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "memprobe:", err)
		os.Exit(1)
	}
}

// options are memprobe's flags.
type options struct {
	bin      string
	tabs     []int
	duration time.Duration
	redisURL string
}

func parse(args []string) (options, error) {
	fs := flag.NewFlagSet("memprobe", flag.ContinueOnError)
	o := options{}
	tabs := fs.String("tabs", "1,2,4", "tab counts to measure, comma-separated")
	fs.StringVar(&o.bin, "bin", "bin/kisa", "the kisa binary")
	fs.DurationVar(&o.duration, "duration", 40*time.Second, "how long each tab count is measured under load")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	for _, t := range strings.Split(*tabs, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(t))
		if err != nil || n < 1 {
			return o, fmt.Errorf("--tabs: %q is not a tab count", t)
		}
		o.tabs = append(o.tabs, n)
	}
	o.redisURL = os.Getenv("REDIS_URL")
	if o.redisURL == "" {
		return o, fmt.Errorf("REDIS_URL is not set: run it through make memory (make services writes the settings)")
	}
	return o, nil
}

func run(ctx context.Context, args []string, out io.Writer) error {
	o, err := parse(args)
	if err != nil {
		return err
	}
	ropt, err := redis.ParseURL(o.redisURL)
	if err != nil {
		return fmt.Errorf("REDIS_URL: %w", err)
	}
	rdb := redis.NewClient(ropt)
	defer rdb.Close()
	fmt.Fprintf(out, "| Tabs | Jobs done | PSS mean | PSS peak | RSS peak (sum) | Processes |\n| --- | --- | --- | --- | --- | --- |\n")
	for _, n := range o.tabs {
		m, err := measure(ctx, o, rdb, n)
		if err != nil {
			return fmt.Errorf("%d tabs: %w", n, err)
		}
		fmt.Fprintf(out, "| %d | %d | %d MB | %d MB | %d MB | %d |\n", n, m.jobs, m.pssMean>>10, m.pssPeak>>10, m.rssPeak>>10, m.procs)
	}
	return nil
}

// figures are one measurement; sizes in KiB.
type figures struct {
	jobs                      int
	pssMean, pssPeak, rssPeak int
	procs                     int
}

// measure runs a worker with n tabs under load for o.duration.
func measure(ctx context.Context, o options, rdb *redis.Client, n int) (figures, error) {
	if err := rdb.FlushDB(ctx).Err(); err != nil {
		return figures{}, err
	}
	fx := httptest.NewServer(serpfixture.New(serpfixture.Options{OverviewDelay: time.Second}))
	defer fx.Close()
	w, done, err := startWorker(o.bin, n, fx.URL+"/search")
	if err != nil {
		return figures{}, err
	}
	defer func() { w.Process.Signal(syscall.SIGTERM); w.Wait() }()
	<-done
	client := asynq.NewClientFromRedisClient(rdb)
	inspector := asynq.NewInspectorFromRedisClient(rdb)
	var f figures
	var sum, samples int
	seq := 0
	for end := time.Now().Add(o.duration); time.Now().Before(end); {
		seq = keepBusy(client, inspector, n, seq)
		pss, rss, procs := memoryOf(w.Process.Pid)
		sum, samples = sum+pss, samples+1
		f.pssPeak, f.rssPeak, f.procs = max(f.pssPeak, pss), max(f.rssPeak, rss), max(f.procs, procs)
		select {
		case <-ctx.Done():
			return f, ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
	if q, err := inspector.GetQueueInfo(jobs.QueueOverview); err == nil {
		f.jobs = q.Processed
	}
	f.pssMean = sum / max(samples, 1)
	return f, nil
}

// startWorker runs `kisa worker` with n tabs; done is closed once it
// logs that it started.
func startWorker(bin string, n int, searchURL string) (*exec.Cmd, <-chan struct{}, error) {
	w := exec.Command(bin, "worker")
	w.Env = append(os.Environ(), "KISA_BROWSER_CONCURRENCY="+strconv.Itoa(n), "KISA_SEARCH_URL="+searchURL,
		"KISA_LOG_LEVEL=info")
	stderr, err := w.StderrPipe()
	if err != nil {
		return nil, nil, err
	}
	if err := w.Start(); err != nil {
		return nil, nil, fmt.Errorf("start %s: %w (make build first)", bin, err)
	}
	done := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		started := false
		for sc.Scan() {
			if !started && strings.Contains(sc.Text(), `"worker started"`) {
				started = true
				close(done)
			}
		}
		if !started {
			close(done)
		}
	}()
	return w, done, nil
}

// keepBusy enqueues new distinct tasks until n are pending or running,
// and returns the next sequence number.
func keepBusy(c *asynq.Client, in *asynq.Inspector, n, seq int) int {
	busy := 0
	if q, err := in.GetQueueInfo(jobs.QueueOverview); err == nil {
		busy = q.Pending + q.Active
	}
	for ; busy < n; busy++ {
		seq++
		t, err := jobs.NewOverviewTask(jobs.OverviewPayload{Key: fmt.Sprintf("memprobe-%d-%d", time.Now().UnixNano(), seq),
			Query: fmt.Sprintf("memory probe question %d", seq), LanguageCode: "en", Screenshots: true}, time.Minute, 1)
		if err == nil {
			c.Enqueue(t)
		}
	}
	return seq
}

// memoryOf sums PSS and RSS (KiB) over pid and every process below it.
func memoryOf(pid int) (pss, rss, procs int) {
	for _, p := range append(descendants(pid), pid) {
		b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(p), "smaps_rollup"))
		if err != nil {
			continue
		}
		procs++
		for _, line := range strings.Split(string(b), "\n") {
			fields := strings.Fields(line)
			if len(fields) < 2 {
				continue
			}
			v, _ := strconv.Atoi(fields[1])
			switch fields[0] {
			case "Pss:":
				pss += v
			case "Rss:":
				rss += v
			}
		}
	}
	return pss, rss, procs
}

// descendants lists the processes below pid, read from /proc.
func descendants(pid int) []int {
	parent := map[int]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(fields) > 1 {
			parent[p], _ = strconv.Atoi(fields[1])
		}
	}
	var out []int
	for p := range parent {
		for q := parent[p]; q > 1; q = parent[q] {
			if q == pid {
				out = append(out, p)
				break
			}
		}
	}
	return out
}
