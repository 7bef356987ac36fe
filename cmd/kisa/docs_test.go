package main

import (
	"os"
	"strings"
	"testing"
)

// TestDocsShowTheProcfile keeps docs/operations.md true: every line of the
// Procfile is quoted in it as it is.
func TestDocsShowTheProcfile(t *testing.T) {
	procfile, err := os.ReadFile("../../Procfile")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile("../../docs/operations.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(procfile)), "\n") {
		if !strings.Contains(string(doc), "`"+line+"`") {
			t.Errorf("docs/operations.md does not show the Procfile line `%s`", line)
		}
	}
}
