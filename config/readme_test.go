package config_test

import (
	"os"
	"strings"
	"testing"

	"github.com/kisa-dev/kisa/config"
)

// TestREADMEListsEveryVariable keeps README's configuration table true:
// every variable the service reads is there, with its default.
func TestREADMEListsEveryVariable(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	for _, v := range config.Vars {
		def := "(none)"
		if v.Default != "" {
			def = "`" + v.Default + "`"
		}
		if row := "| `" + v.Name + "` | " + def + " |"; !strings.Contains(readme, row) {
			t.Errorf("README lacks the row %q", row)
		}
	}
}
