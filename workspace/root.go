package workspace

import (
	"os"
	"path/filepath"
	"strings"
)

// RootEnv names the environment variable that sets the workspace root.
const RootEnv = "CREATOR_WORKSPACE"

// containerRoot is the root used inside a container when it is writable.
const containerRoot = "/workspace"

// Environment is what ResolveRoot looks at besides the flag; tests replace it.
type Environment struct {
	Getenv      func(string) string
	InContainer func() bool
	Writable    func(dir string) bool
}

// SystemEnvironment reads the real process environment and file system.
func SystemEnvironment() Environment {
	return Environment{Getenv: os.Getenv, InContainer: inContainer, Writable: writableDir}
}

// ResolveRoot picks the folder that holds the jobs: the --workspace flag,
// else $CREATOR_WORKSPACE, else /workspace inside a container (when it is a
// writable folder), else ./workspace. The result is absolute.
func ResolveRoot(flag string, env Environment) (string, error) {
	dir := flag
	if dir == "" {
		dir = env.Getenv(RootEnv)
	}
	if dir == "" && env.InContainer() && env.Writable(containerRoot) {
		dir = containerRoot
	}
	if dir == "" {
		dir = "workspace"
	}
	return filepath.Abs(dir)
}

func inContainer() bool {
	for _, marker := range []string{"/.dockerenv", "/run/.containerenv"} {
		if _, err := os.Stat(marker); err == nil {
			return true
		}
	}
	if os.Getenv("container") != "" || os.Getenv("KUBERNETES_SERVICE_HOST") != "" {
		return true
	}
	data, err := os.ReadFile("/proc/1/cgroup")
	if err != nil {
		return false
	}
	s := string(data)
	return strings.Contains(s, "docker") || strings.Contains(s, "kubepods") ||
		strings.Contains(s, "containerd") || strings.Contains(s, "lxc")
}

func writableDir(dir string) bool {
	fi, err := os.Stat(dir)
	if err != nil || !fi.IsDir() {
		return false
	}
	f, err := os.CreateTemp(dir, ".creator-probe-")
	if err != nil {
		return false
	}
	name := f.Name()
	f.Close()
	os.Remove(name)
	return true
}
