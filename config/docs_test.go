package config_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kisa-dev/kisa/config"
)

// TestConfigurationDocListsEveryVariable keeps the configuration table of
// docs/configuration.md equal to config.Vars: the same variables, each
// once, with the same defaults.
func TestConfigurationDocListsEveryVariable(t *testing.T) {
	b, err := os.ReadFile("../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	got, err := configTable(string(b))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for _, v := range config.Vars {
		def := "(none)"
		if v.Default != "" {
			def = "`" + v.Default + "`"
		}
		want[v.Name] = def
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("docs/configuration.md's table differs from config.Vars (-config +doc):\n%s", diff)
	}
}

// configTable reads the table under the header "| Variable | Default |":
// each row's variable name and default, as written.
func configTable(doc string) (map[string]string, error) {
	const header = "| Variable | Default | What it sets |"
	_, rest, ok := strings.Cut(doc, header+"\n")
	if !ok {
		return nil, fmt.Errorf("no table with the header %q", header)
	}
	rows := map[string]string{}
	for _, line := range strings.Split(rest, "\n")[1:] { // [0] is the |---| line
		if !strings.HasPrefix(line, "|") {
			break
		}
		cells := strings.Split(line, " | ")
		if len(cells) < 3 {
			return nil, fmt.Errorf("row %q: want three cells", line)
		}
		name := strings.Trim(strings.TrimPrefix(cells[0], "| "), "`")
		if _, dup := rows[name]; dup {
			return nil, fmt.Errorf("%s is listed twice", name)
		}
		rows[name] = cells[1]
	}
	return rows, nil
}
