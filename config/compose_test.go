package config_test

import (
	"os"
	"slices"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/kisa-dev/kisa/config"
)

// TestComposeSetsKnownVariables: every variable that docker-compose.yml
// gives a kisa process is one the configuration reads, so a misspelt or
// retired setting cannot sit in the compose file unnoticed.
func TestComposeSetsKnownVariables(t *testing.T) {
	b, err := os.ReadFile("../docker-compose.yml")
	if err != nil {
		t.Fatal(err)
	}
	var compose struct {
		Services map[string]struct {
			Image       string            `yaml:"image"`
			Environment map[string]string `yaml:"environment"`
		} `yaml:"services"`
	}
	if err := yaml.Unmarshal(b, &compose); err != nil {
		t.Fatalf("docker-compose.yml: %v", err)
	}
	var known []string
	for _, v := range config.Vars {
		known = append(known, v.Name)
	}
	checked := 0
	for name, svc := range compose.Services {
		if svc.Image != "kisa:local" {
			continue
		}
		checked++
		for v := range svc.Environment {
			if !slices.Contains(known, v) {
				t.Errorf("service %s sets %s, which config.Vars does not know", name, v)
			}
		}
	}
	if checked < 3 {
		t.Errorf("found %d services running kisa:local, want migrate, web and worker", checked)
	}
}
