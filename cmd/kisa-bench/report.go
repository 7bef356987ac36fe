package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

// row is one figure of the table.
type row struct {
	Figure   string `json:"figure"`
	Kisa     string `json:"kisa"`
	Baseline string `json:"baseline"`
	Ratio    string `json:"ratio"`
	Target   string `json:"target"`
	Met      string `json:"met"` // yes, no, or - (nothing to compare)
	// Raw holds every measured value, for the JSON file.
	Raw any `json:"raw,omitempty"`
}

// report is the run's results.
type report struct {
	Time      string   `json:"time"`
	Quick     bool     `json:"quick"`
	CPUs      int      `json:"cpus"`
	LoadStart string   `json:"load_start"`
	LoadEnd   string   `json:"load_end"`
	Rows      []row    `json:"rows"`
	Notes     []string `json:"notes"`
}

func newReport(stamp string, quick bool) *report {
	return &report{Time: stamp, Quick: quick, CPUs: runtime.NumCPU(), LoadStart: loadAvg()}
}

func (r *report) add(x row)               { r.Rows = append(r.Rows, x) }
func (r *report) note(f string, a ...any) { r.Notes = append(r.Notes, fmt.Sprintf(f, a...)) }

// loadAvg is /proc/loadavg's three averages.
func loadAvg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// markdown renders the table.
func (r *report) markdown() string {
	var b strings.Builder
	mode := "full"
	if r.Quick {
		mode = "quick (BENCH_QUICK=1)"
	}
	fmt.Fprintf(&b, "# kisa-bench %s, %s\n\n%d CPUs; load average %s at the start, %s at the end.\n\n",
		r.Time, mode, r.CPUs, r.LoadStart, r.LoadEnd)
	b.WriteString("| figure | kisa | baseline, same run | ratio | target | met |\n| --- | --- | --- | --- | --- | --- |\n")
	for _, x := range r.Rows {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", x.Figure, x.Kisa, x.Baseline, x.Ratio, x.Target, x.Met)
	}
	if len(r.Notes) > 0 {
		b.WriteString("\n")
		for _, n := range r.Notes {
			fmt.Fprintf(&b, "- %s\n", n)
		}
	}
	return b.String()
}

// write saves <out>/<time>.md and .json and prints the table.
func (r *report) write(out string, stdout io.Writer) error {
	r.LoadEnd = loadAvg()
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	md := r.markdown()
	js, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	base := filepath.Join(out, r.Time)
	if err := os.WriteFile(base+".md", []byte(md), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(base+".json", append(js, '\n'), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\n%s\nwritten: %s.md, %s.json\n", md, base, base)
	return nil
}

// median of xs (0 for none).
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// p99 of xs by the nearest rank (the largest value for fewer than 100).
func p99(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	i := (99*len(s) + 99) / 100
	return s[min(i, len(s))-1]
}

func yes(ok bool) string {
	if ok {
		return "yes"
	}
	return "no"
}
