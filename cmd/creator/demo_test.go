package main

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// make demo runs its job in the default workspace, so that `creator list`
// and `creator status` right after it show the job (a demo in a folder of
// its own left them empty).
func TestDemoUsesTheDefaultWorkspace(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	out, err := exec.Command("make", "-n", "-C", filepath.Join("..", ".."), "demo").CombinedOutput()
	if err != nil {
		t.Fatalf("make -n demo: %v\n%s", err, out)
	}
	run := regexp.MustCompile(`creator run [^)]*`).FindString(string(out))
	if run == "" {
		t.Fatalf("make demo runs no `creator run`:\n%s", out)
	}
	if strings.Contains(run, "--workspace") || strings.Contains(string(out), "CREATOR_WORKSPACE=") {
		t.Errorf("make demo chooses its own workspace (%s); `creator list` afterwards would not show its job", run)
	}
}
