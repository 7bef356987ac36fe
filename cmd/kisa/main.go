// Command kisa is the service's one binary: the HTTP API (web), the
// browser worker (worker), the schema migrator (migrate) and the admin
// command line (admin). The offline fake search engine is a command of its
// own, cmd/serpfixture.
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
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr)
	stop()
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(os.Stderr, "kisa:", err)
		os.Exit(1)
	}
}

// env is what every subcommand gets from main.
type env struct {
	getenv func(string) string
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
}

// command is one subcommand.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, e env, args []string) error
}

func commands() []command {
	return []command{
		{"web", "run the HTTP API", runWeb},
		{"worker", "run a browser worker (asynq server with a pool of Chromium tabs)", runWorker},
		{"migrate", "apply the database migrations (safe to run from several processes)", runMigrate},
		{"admin", "manage accounts, keys and resources (kisa admin --help)", runAdmin},
		{"healthcheck", "exit 0 when the local web (or, with --worker, worker) is ready; for containers", runHealthcheck},
		{"client", "call the API with $KISA_API_KEY and print JSON (kisa client --help)", runClient},
		{"read", "re-read a saved or stored page with this build's readings and print its results (kisa read --help)", runRead},
	}
}

// run is the whole program; tests call it as main does.
func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	e := env{getenv: getenv, stdin: stdin, stdout: stdout, stderr: stderr}
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stdout)
		if len(args) == 0 {
			return errors.New("no command given")
		}
		return nil
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return c.run(ctx, e, args[1:])
		}
	}
	usage(stderr)
	return fmt.Errorf("unknown command %q", args[0])
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "Usage: kisa <command> [flags]\n\nCommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-13s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'kisa <command> --help' for a command's flags. Settings come from the environment (see docs/configuration.md).")
}

// flags returns a FlagSet for a subcommand. Its help goes to stdout when
// asked for (-h, --help); after a bad flag the flag package prints the
// error and then the help, and both go to stderr, so that a failed
// command writes nothing on stdout.
func flags(e env, name, summary string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	errs := &noteWriter{w: e.stderr}
	fs.SetOutput(errs)
	fs.Usage = func() {
		w := e.stdout
		if errs.wrote {
			w = e.stderr
		}
		fmt.Fprintf(w, "Usage: kisa %s [flags]\n\n%s\n", name, summary)
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

// parseFlags parses args, refusing stray positional arguments.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%s: unexpected argument %q", fs.Name(), fs.Arg(0))
	}
	return nil
}
