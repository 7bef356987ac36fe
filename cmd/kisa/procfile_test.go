package main

import (
	"os"
	"strings"
	"testing"
)

// TestREADMEShowsTheProcfile keeps README's Operations section true: every
// line of the Procfile is quoted in it as it is.
func TestREADMEShowsTheProcfile(t *testing.T) {
	procfile, err := os.ReadFile("../../Procfile")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(procfile)), "\n") {
		if !strings.Contains(string(readme), "`"+line+"`") {
			t.Errorf("README does not show the Procfile line `%s`", line)
		}
	}
}
