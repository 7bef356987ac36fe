package api

import (
	"encoding/csv"
	"io"
	"strings"
)

// csvFormulaStarts are the first characters that make a spreadsheet read a
// cell as a formula (OWASP, "CSV Injection"): =, +, -, @, a tab and a
// carriage return.
const csvFormulaStarts = "=+-@\t\r"

// csvCell is s as a CSV cell that a spreadsheet reads as text: a cell
// beginning with one of csvFormulaStarts gets a leading apostrophe, as
// OWASP recommends; any other cell is s as it is.
func csvCell(s string) string {
	if s != "" && strings.ContainsRune(csvFormulaStarts, rune(s[0])) {
		return "'" + s
	}
	return s
}

// safeCSV is a csv.Writer whose every cell passes through csvCell: every
// CSV kisa writes (history, brands, sources) goes through it, because its
// cells hold third-party text (titles, answers) that may begin with a
// formula.
type safeCSV struct{ w *csv.Writer }

// newSafeCSV returns a safeCSV writing to w.
func newSafeCSV(w io.Writer) *safeCSV { return &safeCSV{w: csv.NewWriter(w)} }

// Write writes one record with its cells neutralised.
func (s *safeCSV) Write(record []string) {
	out := make([]string, len(record))
	for i, c := range record {
		out[i] = csvCell(c)
	}
	_ = s.w.Write(out) // a failed write surfaces in Flush's error
}

// Flush writes what is buffered; the error is the first failed write's.
func (s *safeCSV) Flush() error {
	s.w.Flush()
	return s.w.Error()
}
