// Command kisa-bench is the side-by-side benchmark suite of issue 11
// (`make bench`): it starts the real `kisa web`, `kisa worker` and
// `serpfixture` binaries against a database and a Redis db of its own,
// measures each figure against a baseline in the same run (A B A B), and
// writes bench/results/<time>.md and .json. It prints which targets are
// met and asserts nothing.
//
// Usage:
//
//	kisa-bench [--bin bin] [--out bench/results]   the suite (BENCH_QUICK=1: small counts)
//	kisa-bench bare --addr 127.0.0.1:0              the bare net/http baselines
//	kisa-bench visit --url URL [--fresh] [--n 3]    the standalone browser baseline
//	kisa-bench page --url URL [--n 3]               the page's own time (navigation + streaming)
//
// The suite reads DATABASE_URL and REDIS_URL (from .data/services.env) and
// derives its own database (kisa_bench) and Redis db (one of 1 to 15,
// claimed the way the tests claim theirs) from them;
// BENCH_DATABASE_URL and BENCH_REDIS_URL override. BENCH_ONLY=reads,hits
// runs only the figures named.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(os.Stderr, "kisa-bench:", err)
		os.Exit(1)
	}
}

// run is the whole program: the suite, or one of the baseline modes.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) > 0 {
		switch args[0] {
		case "bare":
			return runBare(ctx, args[1:], getenv, stdout)
		case "visit":
			return runVisit(ctx, args[1:], getenv, stdout)
		case "page":
			return runPage(ctx, args[1:], getenv, stdout)
		}
	}
	return runSuite(ctx, args, getenv, stdout, stderr)
}
