// Command serpfixture serves the offline fake search engine of package
// serpfixture (results pages shaped like Google's, the consent page and
// the CAPTCHA page) for tests, demos and `make run`. It is a command of its
// own so that the kisa binary embeds none of the captured pages.
//
// Usage:
//
//	serpfixture [--addr 127.0.0.1:8090] [--delay 1.5s] [--generating 0s] [--pause 0s] [--consent=true]
//	serpfixture --print-env [--addr 127.0.0.1:8090]
//
// It serves the AI assistants' sites too (/chatgpt/, /perplexity/,
// /gemini/, /copilot/); --print-env prints the KISA_...= lines that point
// kisa at a fixture on --addr, and exits. --delay, --generating and
// --pause shape how every overview and AI Mode answer streams in
// (serpfixture.Stream); a request may override them with the query
// parameters delay, generating and pause.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/kisa-dev/kisa/ops"
	"github.com/kisa-dev/kisa/serpfixture"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(os.Stderr, "serpfixture:", err)
		os.Exit(1)
	}
}

// run is the whole program; tests call it as main does. It serves until
// ctx is done, then shuts the server down.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flags(stdout, stderr)
	addr := fs.String("addr", "127.0.0.1:8090", "listen address")
	delay := fs.Duration("delay", serpfixture.DefaultOverviewDelay, "how long the AI overview (and each AI Mode answer) takes to stream in")
	generating := fs.Duration("generating", 0, `length of a first phase showing the "Generating" status and no answer (0: a quiet loading phase of 40% of --delay)`)
	pause := fs.Duration("pause", 0, "stream the answer in bursts with silences of this length between them (0: evenly)")
	consent := fs.Bool("consent", true, "show the consent interstitial on a first visit without its cookie")
	automated := fs.Bool("allow-automated", false, "serve results to a browser that looks automated (webdriver, no client hints) instead of the CAPTCHA")
	printEnv := fs.Bool("print-env", false, "print the KISA_...= lines that point kisa at a fixture on --addr, and exit")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if *generating < 0 || *pause < 0 {
		return errors.New("--generating and --pause must be 0 or more")
	}
	if *printEnv {
		for _, l := range serpfixture.Env("http://" + *addr) {
			fmt.Fprintln(stdout, l)
		}
		return nil
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("--addr: %w", err)
	}
	log := slog.New(slog.NewJSONHandler(stderr, nil))
	h := serpfixture.New(serpfixture.Options{OverviewDelay: *delay, Generating: *generating, Pause: *pause, Consent: *consent, AllowAutomated: *automated, Logger: log})
	log.Info("serp fixture listening", "url", "http://"+ln.Addr().String()+"/search")
	return ops.Serve(ctx, &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}, ln, 5*time.Second)
}

// flags returns the command's FlagSet. Its help goes to stdout when asked
// for (-h, --help); after a bad flag the error and the help go to stderr,
// so that a failed start writes nothing on stdout.
func flags(stdout, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("serpfixture", flag.ContinueOnError)
	errs := &noteWriter{w: stderr}
	fs.SetOutput(errs)
	fs.Usage = func() {
		w := stdout
		if errs.wrote {
			w = stderr
		}
		fmt.Fprintln(w, "Usage: serpfixture [flags]\n\nServe an offline fake search engine (pages shaped like Google's) for tests and demos.")
		fs.SetOutput(w)
		fs.PrintDefaults()
		fs.SetOutput(errs)
	}
	return fs
}

// noteWriter notes whether anything was written through it.
type noteWriter struct {
	w     io.Writer
	wrote bool
}

func (n *noteWriter) Write(p []byte) (int, error) {
	n.wrote = true
	return n.w.Write(p)
}
