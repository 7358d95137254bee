package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"creator/internal/app"
	"creator/internal/pdfcrypt"
)

const (
	samplePDF       = "../../testdata/sample/retention-policy.pdf"
	testPDFPassword = "pdf-pass-7e1b9c3a"
	needsPassword   = "this PDF needs a password: give it with --pdf-password (or CREATOR_PDF_PASSWORD)"
)

// encryptedSample writes the sample policy, encrypted with AES-256, as
// policy.pdf in a fresh folder: with userPassword, or restricted by an
// owner password only when it is empty.
func encryptedSample(t *testing.T, userPassword string) string {
	t.Helper()
	plain, err := os.ReadFile(samplePDF)
	if err != nil {
		t.Fatal(err)
	}
	data, err := pdfcrypt.Encrypt(plain, pdfcrypt.AES256, userPassword, "owner-pass-51d0")
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "retention-policy.pdf")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// A PDF restricted by an owner password only ("printing not allowed")
// gives the same requirements as the same PDF unencrypted.
func TestRunOwnerPasswordOnlyPDF(t *testing.T) {
	t.Parallel()
	_, want := readRequirements(t, runBuiltin(t, samplePDF, "policy"))
	_, got := readRequirements(t, runBuiltin(t, encryptedSample(t, ""), "policy"))
	if len(want) < 100 {
		t.Fatalf("the unencrypted sample gave no requirements: %s", want)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("requirements differ from the unencrypted PDF's:\n%s\nwant:\n%s", got, want)
	}
}

// A PDF that needs a password: refused without it or with a wrong one
// (exit 1, no job), read with --pdf-password or CREATOR_PDF_PASSWORD, on
// every command that extracts documents; the password is written nowhere.
func TestPDFPassword(t *testing.T) {
	t.Parallel()
	doc := encryptedSample(t, testPDFPassword)
	ws := t.TempDir()
	noPassword := func(t *testing.T, stdout, stderr string) {
		t.Helper()
		if strings.Contains(stdout+stderr, testPDFPassword) {
			t.Errorf("the password is in the output:\n%s\n%s", stdout, stderr)
		}
	}

	t.Run("refused", func(t *testing.T) {
		for _, c := range []struct {
			args []string
			want string
		}{
			{[]string{"run", "--job", "none", doc}, "retention-policy.pdf: " + needsPassword + " — no job was created"},
			{[]string{"run", "--job", "wrong", "--pdf-password", "not-" + testPDFPassword, doc}, "retention-policy.pdf: the password given for this PDF is wrong"},
			{[]string{"extract", doc}, "retention-policy.pdf: " + needsPassword},
			{[]string{"extract", "--pdf-password", "not-" + testPDFPassword, doc}, "the password given for this PDF is wrong"},
		} {
			code, stdout, stderr := cli(t, append(c.args[:1:1], append([]string{"--workspace", ws}, c.args[1:]...)...)...)
			if code != exitFailure || !strings.Contains(stderr, c.want) {
				t.Errorf("creator %s: exit %d, stderr %q; want exit 1 and %q", strings.Join(c.args, " "), code, stderr, c.want)
			}
			if strings.Contains(stderr, "not-"+testPDFPassword) {
				t.Errorf("creator %s: the wrong password is in the message: %q", strings.Join(c.args, " "), stderr)
			}
			noPassword(t, stdout, stderr)
		}
		if jobs, _ := filepath.Glob(filepath.Join(ws, "job_*")); len(jobs) > 0 {
			t.Errorf("jobs were created: %q", jobs)
		}
	})

	t.Run("extract", func(t *testing.T) {
		_, want, _ := cli(t, "extract", samplePDF)
		for _, env := range []map[string]string{nil, {app.PDFPasswordEnv: testPDFPassword}} {
			args := []string{"extract", doc}
			if env == nil {
				args = []string{"extract", "--pdf-password", testPDFPassword, doc}
			}
			code, stdout, stderr := cliWith(t, env, nil, args...)
			if code != exitOK || stdout != want {
				t.Errorf("creator %s (env %v): exit %d, %s\n%s", strings.Join(args, " "), env != nil, code, stderr, stdout)
			}
			noPassword(t, stdout, stderr)
		}
	})

	t.Run("run and resume", func(t *testing.T) {
		root := t.TempDir()
		// Stopped at its first step, then resumed: with the password from
		// the environment the second time.
		code, stdout, stderr := cli(t, "run", "--workspace", root, "--job", "locked", "--max-steps", "1", "--quiet", "--pdf-password", testPDFPassword, doc)
		if code != exitIncomplete {
			t.Fatalf("run: exit %d\n%s", code, stderr)
		}
		noPassword(t, stdout, stderr)
		code, _, stderr = cli(t, "resume", "--workspace", root, "--job", "locked", "--max-steps", "1000", "--quiet")
		if code != exitFailure || !strings.Contains(stderr, "retention-policy.pdf: "+needsPassword+" — job 'locked' was not resumed") {
			t.Fatalf("resume without the password: exit %d\n%s", code, stderr)
		}
		code, stdout, stderr = cliWith(t, map[string]string{app.PDFPasswordEnv: testPDFPassword}, nil, "resume", "--workspace", root, "--job", "locked", "--max-steps", "1000", "--quiet")
		if code != exitOK {
			t.Fatalf("resume: exit %d\n%s", code, stderr)
		}
		noPassword(t, stdout, stderr)
		_, want := readRequirements(t, runBuiltin(t, samplePDF, "locked"))
		if _, got := readRequirements(t, filepath.Join(root, "job_locked")); !bytes.Equal(got, want) {
			t.Errorf("requirements differ from the unencrypted PDF's:\n%s\nwant:\n%s", got, want)
		}
		assertNowhere(t, root, testPDFPassword)
	})

	t.Run("batch", func(t *testing.T) {
		root := t.TempDir()
		code, _, stderr := cli(t, "batch", "--workspace", root, "--quiet", doc)
		if code != exitFailure || !strings.Contains(stderr, needsPassword) {
			t.Fatalf("batch without the password: exit %d\n%s", code, stderr)
		}
		// Stopped at its first step: batch.md and the message give the
		// command that continues the batch, without the password.
		code, stdout, stderr := cli(t, "batch", "--workspace", root, "--quiet", "--max-steps", "1", "--pdf-password", testPDFPassword, doc)
		if code != exitIncomplete || !strings.Contains(stderr, "continue the batch with: creator batch") {
			t.Fatalf("batch --max-steps 1: exit %d\n%s", code, stderr)
		}
		noPassword(t, stdout, stderr)
		assertNowhere(t, root, testPDFPassword)
		code, stdout, stderr = cli(t, "batch", "--workspace", root, "--quiet", "--max-steps", "1000", "--pdf-password", testPDFPassword, doc)
		if code != exitOK {
			t.Fatalf("batch: exit %d\n%s", code, stderr)
		}
		noPassword(t, stdout, stderr)
		assertNowhere(t, root, testPDFPassword)
	})

	t.Run("help and queue", func(t *testing.T) {
		env := map[string]string{app.PDFPasswordEnv: testPDFPassword}
		for _, cmd := range []string{"run", "resume", "batch", "extract"} {
			code, stdout, stderr := cliWith(t, env, nil, cmd, "--help")
			if code != exitOK || !strings.Contains(stdout, "--pdf-password") {
				t.Errorf("creator %s --help: exit %d, no --pdf-password:\n%s", cmd, code, stdout)
			}
			noPassword(t, stdout, stderr)
		}
		// The queue's jobs never carry it: each worker takes its own.
		if code, _, stderr := cli(t, "enqueue", "--pdf-password", testPDFPassword, doc); code != exitUsage || !strings.Contains(stderr, "unknown flag: --pdf-password") {
			t.Errorf("enqueue --pdf-password: exit %d\n%s", code, stderr)
		}
	})
}

// assertNowhere checks that no file under root holds s.
func assertNowhere(t *testing.T, root, s string) {
	t.Helper()
	n := 0
	filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			n++
			if data, _ := os.ReadFile(p); bytes.Contains(data, []byte(s)) {
				t.Errorf("the password is in %s", p)
			}
		}
		return nil
	})
	if n == 0 {
		t.Errorf("no files under %s", root)
	}
}
