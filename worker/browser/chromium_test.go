package browser

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSweepProfiles checks that only the profile dirs of dead workers are
// removed at start: a SIGKILLed worker cannot clean up after itself.
func TestSweepProfiles(t *testing.T) {
	tmp := t.TempDir()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	owners := map[string]string{
		profilePrefix + "live":    strconv.Itoa(os.Getpid()),
		profilePrefix + "dead":    strconv.Itoa(dead.Process.Pid),
		profilePrefix + "unowned": "",
		"other-dir":               strconv.Itoa(dead.Process.Pid),
	}
	for name, pid := range owners {
		dir := filepath.Join(tmp, name)
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if pid != "" {
			if err := os.WriteFile(filepath.Join(dir, ownerFile), []byte(pid), 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	if n := sweepProfiles(tmp); n != 1 {
		t.Errorf("sweepProfiles removed %d dirs, want 1", n)
	}
	entries, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, e := range entries {
		left = append(left, e.Name())
	}
	want := []string{profilePrefix + "live", profilePrefix + "unowned", "other-dir"}
	if diff := cmp.Diff(want, left); diff != "" {
		t.Errorf("dirs left (-want +got):\n%s", diff)
	}
}
