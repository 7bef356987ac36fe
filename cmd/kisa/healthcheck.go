package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/kisa-dev/kisa/config"
)

// runHealthcheck asks the local web process (or, with --worker, the local
// worker) whether it is ready, for container health checks: the image has
// no curl. It exits non-zero unless /readyz answers 200.
func runHealthcheck(ctx context.Context, e env, args []string) error {
	fs := flags(e, "healthcheck", "GET the local /readyz (web on $PORT, or the worker on $KISA_WORKER_ADDR); exit 0 when ready.")
	workerFlag := fs.Bool("worker", false, "ask the worker's listener (KISA_WORKER_ADDR) instead of web")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	cfg, err := loadConfig(e)
	if err != nil {
		return err
	}
	url := "http://" + readyzHost(cfg, *workerFlag) + "/readyz"
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("healthcheck: %w", err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(res.Body, 4096))
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("healthcheck: %s answered %d: %s", url, res.StatusCode, strings.TrimSpace(string(body)))
	}
	_, err = fmt.Fprintf(e.stdout, "%s\n", body)
	return err
}

// readyzHost is the host:port to ask: the configured address, with an
// unspecified host (all interfaces) replaced by loopback.
func readyzHost(cfg config.Config, worker bool) string {
	host, port := cfg.Host, strconv.Itoa(cfg.Port)
	if worker {
		host, port, _ = net.SplitHostPort(cfg.WorkerAddr)
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port)
}
