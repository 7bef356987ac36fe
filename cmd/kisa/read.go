package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/jobs"
	"github.com/kisa-dev/kisa/overview"
	"github.com/kisa-dev/kisa/storage"
	"github.com/kisa-dev/kisa/worker"
)

// readSummary is kisa read's help text.
const readSummary = `Read a page with today's readings and print its results as the API answers them.

  kisa read --surface SURFACE FILE    a saved page (FILE "-" is standard input; gzip is fine)
  kisa read --job ID                  the page a done job's visit stored (its surface and fields from the job)
  kisa read --object KEY --surface S  a page stored in the bucket under KEY (a visit's page.html.gz or evidence)

--job and --object need DATABASE_URL and KISA_S3_* like the worker. Stored pages are kept 2 days,
evidence of pages not recognised 7 (see docs/surfaces.md, "Re-reading pages").`

// runRead is `kisa read`: it re-reads a page (a saved file, a job's
// stored page, an object of the bucket) with the extractors of this
// build, so that after an extractor fix stored evidence is read again
// instead of paying for new visits. A page no reading knows is an error.
func runRead(ctx context.Context, e env, args []string) error {
	fs := flags(e, "read", readSummary)
	surface := fs.String("surface", "", "the page's surface: "+surfaceNames())
	job := fs.String("job", "", "re-read the page stored by this done async job's visit")
	object := fs.String("object", "", "re-read the page stored in the bucket under this key")
	if err := fs.Parse(args); err != nil {
		return err
	}
	req, html, err := readInput(ctx, e, fs.Args(), kisa.Surface(*surface), *job, *object)
	if err != nil {
		return err
	}
	res, err := worker.Read(html, jobs.OverviewPayload{Query: req.Query, Surface: req.Surface, FollowUps: req.FollowUps})
	if errors.Is(err, kisa.Unrecognised) {
		return fmt.Errorf("read: page not recognised as %s: %w", req.Surface.OrOverview(), err)
	}
	if err != nil {
		return fmt.Errorf("read: %w", err)
	}
	return printJSON(e.stdout, map[string]any{"results": overview.Results(req, res)})
}

// readInput returns the request whose answer the page is read for and
// the page: from a file (or standard input), a job, or an object.
func readInput(ctx context.Context, e env, files []string, surface kisa.Surface, job, object string) (overview.Request, string, error) {
	given := 0
	for _, ok := range []bool{len(files) > 0, job != "", object != ""} {
		if ok {
			given++
		}
	}
	if given != 1 || len(files) > 1 {
		return overview.Request{}, "", errors.New("read: give one of FILE, --job ID or --object KEY (kisa read --help)")
	}
	if job != "" {
		if surface != "" {
			return overview.Request{}, "", errors.New("read: --job takes its surface from the job; leave out --surface")
		}
		return readJob(ctx, e, job)
	}
	if !slices.Contains(kisa.Surfaces, surface) {
		return overview.Request{}, "", fmt.Errorf("read: --surface must be one of: %s", surfaceNames())
	}
	req := overview.Request{Surface: surface, Fields: overview.Fields{ParagraphText: true}}
	if object != "" {
		html, err := storedHTML(ctx, e, object)
		return req, html, err
	}
	html, err := readFile(e, files[0])
	return req, html, err
}

// readJob returns the request of the done job id and the page its visit
// stored.
func readJob(ctx context.Context, e env, id string) (overview.Request, string, error) {
	jobID, err := uuid.Parse(id)
	if err != nil {
		return overview.Request{}, "", fmt.Errorf("read: --job: %q is not a job id", id)
	}
	cfg, err := loadConfig(e)
	if err != nil {
		return overview.Request{}, "", err
	}
	db, err := openDB(ctx, cfg)
	if err != nil {
		return overview.Request{}, "", err
	}
	defer db.Close()
	j, err := db.JobByID(ctx, jobID)
	if errors.Is(err, kisa.NotFound) {
		return overview.Request{}, "", fmt.Errorf("read: no job %s", jobID)
	}
	if err != nil {
		return overview.Request{}, "", err
	}
	var view overview.RequestView
	if err := json.Unmarshal(j.Request, &view); err != nil {
		return overview.Request{}, "", fmt.Errorf("read: job %s: its request: %w", jobID, err)
	}
	var res kisa.Result
	if j.Status != storage.JobDone || json.Unmarshal(j.Result, &res) != nil || res.RawHTML == "" {
		return overview.Request{}, "", fmt.Errorf("read: job %s is %s and has no stored page (a failed visit's evidence is re-read with --object)", jobID, j.Status)
	}
	html, err := storedHTML(ctx, e, res.RawHTML)
	return view.Request(), html, err
}

// storedHTML returns the page stored in the bucket under key.
func storedHTML(ctx context.Context, e env, key string) (string, error) {
	cfg, err := loadConfig(e)
	if err != nil {
		return "", err
	}
	shots, err := openArtifacts(ctx, cfg)
	if err != nil {
		return "", err
	}
	html, err := shots.HTML(ctx, key)
	if err != nil {
		return "", fmt.Errorf("read: %w (stored pages are kept %d days, evidence %d)", err,
			storage.ScreenshotExpiryDays, storage.EvidenceExpiryDays)
	}
	return html, nil
}

// readFile returns the page in the file called name ("-": standard
// input), decompressed when it is gzip (a downloaded page.html.gz).
func readFile(e env, name string) (string, error) {
	var r io.Reader = e.stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return "", fmt.Errorf("read: %w", err)
		}
		defer f.Close()
		r = f
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return "", fmt.Errorf("read: %w", err)
	}
	if bytes.HasPrefix(b, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			return "", fmt.Errorf("read: %s: %w", name, err)
		}
		if b, err = io.ReadAll(zr); err != nil {
			return "", fmt.Errorf("read: %s: %w", name, err)
		}
	}
	return string(b), nil
}

// surfaceNames lists the surfaces for help and errors.
func surfaceNames() string {
	names := make([]string, len(kisa.Surfaces))
	for i, s := range kisa.Surfaces {
		names[i] = string(s)
	}
	return strings.Join(names, ", ")
}
