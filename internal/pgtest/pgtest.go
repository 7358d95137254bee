// Package pgtest starts a throwaway PostgreSQL server for tests: a new
// cluster in a temporary folder, listening on a loopback port, stopped
// when the test ends. It uses the server programs of the system's
// postgresql package; a test skips, saying why, where none is installed.
package pgtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Server is a running test server.
type Server struct {
	Host     string
	Port     int
	User     string // the superuser
	Password string // its password (scram-sha-256)
	Database string // a database made for the test

	databases *atomic.Int64 // databases made by NewDatabase, shared by copies
}

// URL is the connection URL of the server's test database for the given
// password.
func (s *Server) URL(password string) string {
	u := url.URL{Scheme: "postgres", User: url.UserPassword(s.User, password),
		Host: net.JoinHostPort(s.Host, strconv.Itoa(s.Port)), Path: "/" + s.Database, RawQuery: "sslmode=disable"}
	return u.String()
}

// binDir finds the folder of initdb and pg_ctl: on PATH, else under
// /usr/lib/postgresql/<version>/bin (Debian), the newest version first.
func binDir() (string, error) {
	if p, err := exec.LookPath("initdb"); err == nil {
		if _, err := exec.LookPath("pg_ctl"); err == nil {
			if real, err := filepath.EvalSymlinks(p); err == nil {
				p = real
			}
			return filepath.Dir(p), nil
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "pg_ctl")); err == nil {
			return d, nil
		}
	}
	return "", fmt.Errorf("no PostgreSQL server programs (initdb, pg_ctl) on PATH or under /usr/lib/postgresql; install the postgresql package (make postgresql)")
}

func version(bin string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(bin)))
	return n
}

// Start starts a server for t, or skips t when none can be started here.
func Start(t testing.TB) *Server {
	t.Helper()
	bin, err := binDir()
	if err != nil {
		t.Skipf("no PostgreSQL server for this test: %v", err)
	}
	dir := t.TempDir()
	runAs, err := serverUser(dir)
	if err != nil {
		t.Skipf("no PostgreSQL server for this test: %v", err)
	}
	s := &Server{Host: "127.0.0.1", User: "creator", Password: "pgtest-secret", Database: "creator_test", databases: new(atomic.Int64)}
	data := filepath.Join(dir, "data")
	pwfile := filepath.Join(dir, "pwfile")
	if err := os.WriteFile(pwfile, []byte(s.Password+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(name string, args ...string) {
		t.Helper()
		if out, err := runAs(filepath.Join(bin, name), args...); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, out)
		}
	}
	run("initdb", "-D", data, "-U", s.User, "--pwfile", pwfile, "--auth", "scram-sha-256", "-E", "UTF8", "--no-locale", "--no-sync")
	s.Port, err = freePort()
	if err != nil {
		t.Fatal(err)
	}
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=%s -c fsync=off", s.Port, dir, s.Host)
	run("pg_ctl", "-D", data, "-l", filepath.Join(dir, "server.log"), "-o", opts, "-w", "-t", "60", "start")
	t.Cleanup(func() {
		if out, err := runAs(filepath.Join(bin, "pg_ctl"), "-D", data, "-m", "immediate", "-w", "stop"); err != nil {
			t.Logf("pg_ctl stop: %v\n%s", err, out)
		}
	})
	s.create(t, s.Database)
	return s
}

// NewDatabase makes another database on the server, for a test of its
// own, and returns the server with it as the test database.
func (s *Server) NewDatabase(t testing.TB) *Server {
	t.Helper()
	name := fmt.Sprintf("creator_test_%d", s.databases.Add(1))
	s.create(t, name)
	c := *s
	c.Database = name
	return &c
}

func (s *Server) create(t testing.TB, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	admin := *s
	admin.Database = "postgres"
	conn, err := pgx.Connect(ctx, admin.URL(s.Password))
	if err != nil {
		t.Fatalf("connecting to the test server: %v", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("creating the test database: %v", err)
	}
}

// serverUser returns how to run the server's programs: directly, or, for
// root (whom PostgreSQL refuses), as the postgres or nobody user, who is
// then given dir.
func serverUser(dir string) (func(string, ...string) ([]byte, error), error) {
	if os.Geteuid() != 0 {
		return runLimited, nil
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		return nil, fmt.Errorf("running as root and no setpriv to run the server as another user")
	}
	var u *user.User
	for _, name := range []string{"postgres", "nobody"} {
		if u, err = user.Lookup(name); err == nil {
			break
		}
	}
	if u == nil {
		return nil, fmt.Errorf("running as root and no postgres or nobody user to run the server as")
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	// The server user must reach dir through the test's temporary folders.
	for d := dir; d != filepath.Dir(d) && d != os.TempDir(); d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o755); err != nil {
			return nil, err
		}
	}
	if err := os.Chown(dir, uid, gid); err != nil {
		return nil, err
	}
	return func(name string, args ...string) ([]byte, error) {
		a := append([]string{"--reuid", u.Uid, "--regid", u.Gid, "--clear-groups", "--", name}, args...)
		return runLimited(setpriv, a...)
	}, nil
}

// runLimited runs a command for at most two minutes and returns its
// output, standard error included.
func runLimited(name string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.WaitDelay = 5 * time.Second // for a child left holding the output
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if ctx.Err() == context.DeadlineExceeded {
		return out.Bytes(), errors.New("timed out")
	}
	return out.Bytes(), err
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
