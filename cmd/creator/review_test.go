package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"creator/internal/atomicfile"
	"creator/internal/iostreams"
	"creator/internal/jsonl"
	"creator/internal/requirement"
	"creator/internal/reviewlog"
)

var reviewScreenshot = flag.String("review-screenshot", "", "write the review page's screenshot to this file (make screenshot)")

// reviewServer is a `creator review` running in-process.
type reviewServer struct {
	url    string
	cancel context.CancelFunc
	done   chan int
	stderr *syncBuffer
}

// startReview runs `creator review` with args and waits until it serves.
func startReview(t *testing.T, args ...string) *reviewServer {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	s := &reviewServer{cancel: cancel, done: make(chan int, 1), stderr: &syncBuffer{}}
	go func() {
		code := execute(ctx, append([]string{"review", "--addr", "127.0.0.1:0"}, args...),
			testFactory(&iostreams.IOStreams{In: strings.NewReader(""), Out: pw, ErrOut: s.stderr}, map[string]string{"USER": "tester"}, nil))
		pw.Close()
		s.done <- code
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	go io.Copy(io.Discard, pr)
	if err != nil {
		cancel()
		t.Fatalf("creator review printed no address: %v; exit %d\n%s", err, <-s.done, s.stderr.String())
	}
	s.url = strings.TrimSpace(line)
	t.Cleanup(func() { s.stop(t) })
	return s
}

// stop ends the review as Ctrl-C does and returns its exit code.
func (s *reviewServer) stop(t *testing.T) int {
	t.Helper()
	s.cancel()
	select {
	case code := <-s.done:
		s.done <- code
		return code
	case <-time.After(10 * time.Second):
		t.Fatal("creator review did not stop")
		return -1
	}
}

func (s *reviewServer) decide(t *testing.T, id, body string) {
	t.Helper()
	res, err := http.Post(s.url+"api/requirements/"+id+"/review", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != 200 {
		msg, _ := io.ReadAll(res.Body)
		t.Fatalf("%s: %d %s", id, res.StatusCode, msg)
	}
}

func TestReviewCommand(t *testing.T) {
	t.Parallel()
	dir := runBuiltin(t, "../../testdata/sample/retention-policy.pdf", "rv")
	root := filepath.Dir(dir)
	srv := startReview(t, "--workspace", root, "--job", "rv")
	if !strings.HasPrefix(srv.url, "http://127.0.0.1:") {
		t.Fatalf("address %q", srv.url)
	}
	srv.decide(t, "REQ-001", `{"decision": "accepted"}`)
	srv.decide(t, "REQ-002", `{"decision": "rejected", "note": "covered by REQ-001"}`)
	srv.decide(t, "REQ-003", `{"decision": "edited", "changes": {"priority": "low"}}`)

	// The job is locked while it is reviewed: a resume, or a second review,
	// fails at once and says where the review runs (in this process here).
	refused := fmt.Sprintf("creator: job 'rv' is open in creator review (pid %d, %s): stop it (Ctrl-C) and try again\n", os.Getpid(), srv.url)
	if code, _, stderr := cli(t, "resume", "--workspace", root, "--job", "rv"); code != exitFailure || stderr != refused {
		t.Errorf("resume during the review: exit %d %q; want %d %q", code, stderr, exitFailure, refused)
	}
	if code, _, stderr := cli(t, "review", "--workspace", root, "--job", "rv", "--addr", "127.0.0.1:0"); code != exitFailure || stderr != refused {
		t.Errorf("a second review: exit %d %q; want %d %q", code, stderr, exitFailure, refused)
	}
	// status says where the review runs, in words and in JSON.
	if _, out, _ := cli(t, "status", "--workspace", root, "--job", "rv"); !strings.Contains(out, fmt.Sprintf("running (pid %d): open in creator review at %s", os.Getpid(), srv.url)) {
		t.Errorf("status during the review:\n%s", out)
	}
	if _, out, _ := cli(t, "status", "--workspace", root, "--job", "rv", "--json"); !strings.Contains(out, fmt.Sprintf(`"review_address": %q`, srv.url)) {
		t.Errorf("status --json during the review:\n%s", out)
	}
	if code := srv.stop(t); code != 0 {
		t.Fatalf("review exit %d\n%s", code, srv.stderr.String())
	}
	log := srv.stderr.String()
	for _, want := range []string{"reviewing job 'rv' (16 requirements, 0 reviewed)", "REQ-002 rejected (2 of 16 reviewed)", "stopped: 3 of 16 reviewed"} {
		if !strings.Contains(log, want) {
			t.Errorf("stderr lacks %q:\n%s", want, log)
		}
	}
	data, _ := os.ReadFile(filepath.Join(dir, "requirements", "req_001", "final.json"))
	var rec requirement.Record
	if json.Unmarshal(data, &rec); rec.Review == nil || rec.Review.By != "tester" {
		t.Errorf("REQ-001 review %+v: the reviewer is $USER", rec.Review)
	}

	// status, export and their JSON carry the decisions.
	_, out, _ := cli(t, "status", "--workspace", root, "--job", "rv")
	if !strings.Contains(out, "3 of 16 reviewed: 1 accepted, 1 edited, 1 rejected") {
		t.Errorf("status:\n%s", out)
	}
	_, out, _ = cli(t, "status", "--workspace", root, "--job", "rv", "--json")
	var v struct{ Review requirement.Tally }
	if json.Unmarshal([]byte(out), &v); v.Review != (requirement.Tally{Total: 16, Reviewed: 3, Accepted: 1, Edited: 1, Rejected: 1, Pending: 13}) {
		t.Errorf("status --json review %+v", v.Review)
	}
	code, out, stderr := cli(t, "export", "--workspace", root, "--job", "rv", "--reviewed-only")
	var recs []requirement.Record
	if err := json.Unmarshal([]byte(out), &recs); err != nil || code != 0 || len(recs) != 2 || recs[0].ID != "REQ-001" || recs[1].Priority != "low" {
		t.Errorf("export --reviewed-only: exit %d %v %+v", code, err, recs)
	}
	if !strings.Contains(stderr, "leaves out 14 requirements: 13 pending, 1 rejected") {
		t.Errorf("export --reviewed-only stderr %q", stderr)
	}
	_, out, _ = cli(t, "export", "--workspace", root, "--job", "rv", "--format", "csv")
	if !strings.Contains(out, ",rejected,covered by REQ-001,,{}\n") {
		t.Errorf("csv export:\n%s", out)
	}
}

func TestReviewAddress(t *testing.T) {
	t.Parallel()
	dir := runBuiltin(t, "../../testdata/sample/retention-policy.pdf", "addr")
	root := filepath.Dir(dir)
	code, _, stderr := cli(t, "review", "--workspace", root, "--job", "addr", "--addr", "0.0.0.0:0")
	if code != exitUsage || !strings.Contains(stderr, "no authentication") || !strings.Contains(stderr, "--allow-remote") {
		t.Errorf("non-loopback address: exit %d %s", code, stderr)
	}
	if code, _, stderr := cli(t, "review", "--workspace", root, "--job", "addr", "--addr", "8080"); code != exitUsage || !strings.Contains(stderr, "not host:port") {
		t.Errorf("bad address: exit %d %s", code, stderr)
	}
	srv := startReview(t, "--workspace", root, "--job", "addr", "--addr", "0.0.0.0:0", "--allow-remote")
	if srv.stop(t) != 0 || !strings.Contains(srv.stderr.String(), "warning: the review of job 'addr' is served on") {
		t.Errorf("--allow-remote: %s", srv.stderr.String())
	}
}

// TestReviewInBrowser drives the page in headless Chromium: the name asked
// once, accept one requirement with the keyboard, reject one with a
// reason, edit one, reload and see the decisions (and take the screenshot
// of docs/review.md); then bulk decisions on a filtered list, hash
// navigation, the PDF's page link, the export download, the layout at
// phone and tablet widths, and a second reviewer in a browser context of
// their own who meets a conflict, applies their decision again, undoes it
// and comments; last, the review served with a reviewer's token.
func TestReviewInBrowser(t *testing.T) {
	t.Parallel()
	browser := chromium(t)
	dir := runBuiltin(t, "../../testdata/sample/retention-policy.pdf", "web")
	withSourceFields(t, dir, "REQ-004", "RP-4.1", map[string]string{"level": "2", "owner": "Records office"})
	srv := startReview(t, "--workspace", filepath.Dir(dir), "--job", "web")

	// Times are shown in the reader's zone: one that is not UTC.
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(browser), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 860), chromedp.Env("TZ=Asia/Kolkata"),
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-component-update", true))
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancelCtx := chromedp.NewContext(alloc)
	defer cancelCtx()
	ctx, cancel := context.WithTimeout(ctx, 120*time.Second)
	defer cancel()

	css := func(sel string) chromedp.CSS { return chromedp.CSS(sel) }
	shown := func(id string) chromedp.Action[chromedp.Void] {
		return chromedp.Poll[chromedp.Void](`document.querySelector('#detail .rid')?.textContent === '` + id + `' && document.querySelector('#detail mark') !== null`)
	}
	badge := func(id, status string) chromedp.Action[chromedp.Void] {
		return chromedp.WaitVisible(css(`#list li[data-id="` + id + `"] .badge.` + status))
	}
	var progress, rejection, title, editedQuote, filtered, titles, sourceFields, listed4, reviewer string
	var askedAgain bool
	var shot []byte
	err := chromedp.Do(ctx,
		chromedp.Navigate(srv.url),
		settled(),
		// The name is asked once, before the first decision.
		chromedp.WaitVisible(css(`#who-name`)),
		chromedp.SetValue(css(`#who-name`), "tester"),
		chromedp.Click(css(`#who-save`)),
		chromedp.WaitNotVisible(css(`#who`)),
		chromedp.WaitVisible(css(`#list li[data-id="REQ-016"]`)),
		shown("REQ-001"),
		// a accepts and goes on to the next requirement.
		press('a'),
		badge("REQ-001", "accepted"),
		shown("REQ-002"),
		// r asks for the reason, typed into a field that r itself left empty.
		press('r'),
		chromedp.WaitVisible(css(`#reject-reason`)),
		chromedp.SendKeys(css(`#reject-reason`), "Repeats REQ-001 for letters"),
		chromedp.Click(css(`#reject-save`)),
		badge("REQ-002", "rejected"),
		// Edit REQ-003, picked from the list.
		chromedp.Click(css(`#list li[data-id="REQ-003"]`)),
		shown("REQ-003"),
		press('e'),
		chromedp.WaitVisible(css(`#edit-title`)),
		chromedp.SetValue(css(`#edit-title`), "Store records unalterably"),
		chromedp.SetValue(css(`#edit-priority`), "low"),
		chromedp.Click(css(`#edit-save`)),
		badge("REQ-003", "edited"),
		// After a reload the decisions are there, and the name is not asked again.
		chromedp.Reload(),
		badge("REQ-001", "accepted"),
		badge("REQ-002", "rejected"),
		badge("REQ-003", "edited"),
		into(&askedAgain, chromedp.Evaluate[bool](`document.querySelector('#who').open`)),
		into(&reviewer, chromedp.Text(css(`#reviewer-name`))),
		into(&progress, chromedp.Text(css(`#progress-text`))),
		chromedp.Click(css(`#list li[data-id="REQ-002"]`)),
		shown("REQ-002"),
		into(&rejection, chromedp.Text(css(`#detail .decision.rejected`))),
		chromedp.Click(css(`#list li[data-id="REQ-003"]`)),
		shown("REQ-003"),
		into(&title, chromedp.Text(css(`#detail h2`))),
		into(&editedQuote, chromedp.Text(css(`#detail .passage mark`))),
		into(&shot, chromedp.CaptureScreenshot()),
		// The document's id and columns of a requirement.
		chromedp.Click(css(`#list li[data-id="REQ-004"]`)),
		shown("REQ-004"),
		into(&sourceFields, chromedp.Text(css(`#detail .source-fields`))),
		into(&listed4, chromedp.Text(css(`#list li[data-id="REQ-004"]`))),
		// The text filter: the requirements that speak of personal data.
		chromedp.SendKeys(css(`#f-text`), "personal data"),
		chromedp.Poll[chromedp.Void](`document.querySelectorAll('#list li').length < 16`),
		into(&filtered, chromedp.Text(css(`#list-count`))),
		into(&titles, chromedp.Text(css(`#list`))),
	)
	if err != nil {
		t.Fatalf("in the browser: %v\n%s", err, srv.stderr.String())
	}
	if askedAgain || reviewer != "tester" {
		t.Errorf("after a reload: name asked again %v, reviewer %q", askedAgain, reviewer)
	}
	if progress != "reviewed 3 of 16 — 1 accepted, 1 edited, 1 rejected" {
		t.Errorf("progress %q", progress)
	}
	if !strings.Contains(rejection, "Reason: Repeats REQ-001 for letters") || !strings.Contains(rejection, "by tester") {
		t.Errorf("rejection %q", rejection)
	}
	if title != "Store records unalterably" || !strings.HasPrefix(editedQuote, "Records must be stored in the archive") {
		t.Errorf("REQ-003 shows %q, quote %q", title, editedQuote)
	}
	if sourceFields != "RP-4.1\nlevel: 2\nowner: Records office" || !strings.Contains(listed4, "RP-4.1") {
		t.Errorf("REQ-004's source id and attributes: %q, in the list %q", sourceFields, listed4)
	}
	if !strings.HasSuffix(filtered, " of 16 requirements") || !strings.Contains(titles, "Personal data in records") || strings.Contains(titles, "REQ-001") {
		t.Errorf("filtered by text: %q\n%s", filtered, titles)
	}
	// And in the job folder.
	for id, want := range map[string]string{"001": "accepted", "002": "rejected", "003": "edited"} {
		data, _ := os.ReadFile(filepath.Join(dir, "requirements", "req_"+id, "final.json"))
		var rec requirement.Record
		json.Unmarshal(data, &rec)
		if rec.ReviewStatus() != want {
			t.Errorf("REQ-%s is %s in final.json, want %s", id, rec.ReviewStatus(), want)
		}
	}
	if !bytes.HasPrefix(shot, []byte("\x89PNG")) || len(shot) < 10_000 {
		t.Fatalf("the screenshot is not a PNG of the page (%d bytes)", len(shot))
	}
	path := filepath.Join(t.TempDir(), "review.png")
	if *reviewScreenshot != "" {
		path = *reviewScreenshot
	}
	if err := os.WriteFile(path, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)

	t.Run("bulk", func(t *testing.T) { browseBulk(t, ctx, srv) })
	t.Run("navigation", func(t *testing.T) { browseNavigation(t, ctx, srv) })
	t.Run("layout", func(t *testing.T) { browseLayout(t, ctx) })
	t.Run("conflict", func(t *testing.T) { browseConflict(t, ctx, srv) })
	t.Run("token", func(t *testing.T) { browseWithToken(t, ctx, srv, filepath.Dir(dir)) })
}

// chromium is the path of the Chromium the browser tests drive; without
// one they are skipped.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no Chromium: make test installs Debian's chromium package")
	return ""
}

// withSourceFields gives requirement id of the job in dir a source id and
// attributes, in its final.json and in the output, as a document with
// requirement ids and columns would.
func withSourceFields(t *testing.T, dir, id, sourceID string, attrs map[string]string) {
	t.Helper()
	file := filepath.Join(dir, "requirements", "req_"+strings.TrimPrefix(id, "REQ-"), "final.json")
	var rec requirement.Record
	data, err := os.ReadFile(file)
	if err == nil {
		err = json.Unmarshal(data, &rec)
	}
	if err != nil {
		t.Fatal(err)
	}
	rec.SourceID, rec.Attributes = sourceID, attrs
	data, _ = requirement.Marshal(rec)
	os.WriteFile(file, data, 0o644)
	out := filepath.Join(dir, "output", "requirements.json")
	var recs []requirement.Record
	data, _ = os.ReadFile(out)
	if err := json.Unmarshal(data, &recs); err != nil {
		t.Fatal(err)
	}
	for i := range recs {
		if recs[i].ID == id {
			recs[i].SourceID, recs[i].Attributes = sourceID, attrs
		}
	}
	data, _ = requirement.Marshal(recs)
	os.WriteFile(out, data, 0o644)
}

// into runs a browser action and keeps its value in dst.
func into[T any](dst *T, a chromedp.Action[T]) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		v, err := a(ctx, t)
		*dst = v
		return chromedp.Void{}, err
	}
}

// press presses a key as a keyboard does: one key-down that types the
// character unless the page prevents it, then the key-up. (KeyEvent sends
// the character as an event of its own, which a page cannot prevent.)
func press(r rune) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		events := kb.Encode(r)
		down, up := *events[0], *events[len(events)-1]
		down.Text, down.UnmodifiedText = string(r), string(r)
		for _, e := range []input.DispatchKeyEventParams{down, up} {
			if _, err := cdp.Call(ctx, t, input.DispatchKeyEvent, e); err != nil {
				return err
			}
		}
		return nil
	})
}

// TestReviewSurvivesKills sends decisions to `creator review` processes
// and kills each with SIGKILL at a random moment (some after the output
// files were written once decisions paused): every decision the API
// confirmed is in its record, validation.md and the log, the log agrees
// with the records, and the output files agree with the records once the
// review is started again.
func TestReviewSurvivesKills(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs creator as separate processes")
	}
	dir := runBuiltin(t, "../../testdata/sample/retention-policy.pdf", "kill")
	root := filepath.Dir(dir)
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 2))
	exe, _ := os.Executable()
	start := func() (*exec.Cmd, string) {
		cmd := exec.Command(exe, "review", "--workspace", root, "--job", "kill", "--addr", "127.0.0.1:0")
		cmd.Env = append(cleanEnv(), mainEnv+"=1", "USER=tester")
		stdout, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		line, err := bufio.NewReader(stdout).ReadString('\n')
		if err != nil {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("creator review printed no address: %v", err)
		}
		return cmd, strings.TrimSpace(line)
	}
	// Per requirement, the notes of the decisions that may stand: the last
	// one confirmed ("" before any), and each sent after it whose answer a
	// kill cut off (the server may have kept it before it died).
	mayStand := map[string][]string{}
	confirmed := map[string][]string{} // the notes of the decisions confirmed, per requirement
	n := 0
	for round := 0; round < 8; round++ {
		cmd, url := start()
		// Up to 1.5 s: some rounds outlive a pause of the output files.
		deadline := time.Now().Add(time.Duration(rng.IntN(1500)) * time.Millisecond)
		killed := make(chan struct{})
		go func() {
			time.Sleep(time.Until(deadline))
			cmd.Process.Kill()
			close(killed)
		}()
		client := &http.Client{Timeout: 5 * time.Second}
		for {
			n++
			id := fmt.Sprintf("REQ-%03d", n%16+1)
			note := fmt.Sprintf("decision %d", n)
			body := map[int]string{
				0: `{"decision": "accepted", "note": "` + note + `"}`,
				1: `{"decision": "rejected", "note": "` + note + `"}`,
				2: `{"decision": "edited", "note": "` + note + `", "changes": {"title": "Title ` + note + `"}}`,
			}[n%3]
			if mayStand[id] == nil {
				mayStand[id] = []string{""}
			}
			res, err := client.Post(url+"api/requirements/"+id+"/review", "application/json", strings.NewReader(body))
			if err != nil {
				mayStand[id] = append(mayStand[id], note)
				break // killed
			}
			res.Body.Close()
			if res.StatusCode != 200 {
				t.Fatalf("%s: %d", id, res.StatusCode)
			}
			mayStand[id] = []string{note}
			confirmed[id] = append(confirmed[id], note)
			if rng.IntN(10) == 0 {
				time.Sleep(1100 * time.Millisecond) // a pause: the output files are written
			}
		}
		<-killed
		cmd.Wait()
	}
	// A last start rebuilds what the last kill left undone.
	cmd, _ := start()
	cmd.Process.Signal(os.Interrupt)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("review after the kills: %v", err)
	}
	t.Logf("%d decisions over 8 kills", n)

	data, err := os.ReadFile(filepath.Join(dir, "output", "requirements.json"))
	if err != nil {
		t.Fatal(err)
	}
	var out []requirement.Record
	if err := json.Unmarshal(data, &out); err != nil || len(out) != 16 {
		t.Fatalf("output: %v, %d records", err, len(out))
	}
	for _, o := range out {
		want, sent := mayStand[o.ID]
		if !sent {
			want = []string{""}
		}
		final, _ := os.ReadFile(filepath.Join(dir, "requirements", "req_"+strings.TrimPrefix(o.ID, "REQ-"), "final.json"))
		var rec requirement.Record
		json.Unmarshal(final, &rec)
		got := ""
		if rec.Review != nil {
			got = rec.Review.Note
		}
		if !slices.Contains(want, got) {
			t.Errorf("%s holds %q; the last confirmed decision and those after it: %q", o.ID, got, want)
		}
		a, _ := json.Marshal(o)
		b, _ := json.Marshal(rec)
		if string(a) != string(b) {
			t.Errorf("%s: output/requirements.json differs from final.json:\n%s\n%s", o.ID, a, b)
		}
		if rec.Review != nil {
			v, _ := os.ReadFile(filepath.Join(dir, "requirements", "req_"+strings.TrimPrefix(o.ID, "REQ-"), "validation.md"))
			if !strings.Contains(string(v), "- Decision: "+rec.Review.Status+"\n") || !strings.Contains(string(v), rec.Review.Note) {
				t.Errorf("%s validation.md does not say %s %q:\n%s", o.ID, rec.Review.Status, rec.Review.Note, v)
			}
		}
	}
	for p := range listTree(t, dir) {
		if atomicfile.IsTemp(filepath.Base(p)) {
			t.Errorf("left behind: %s", p)
		}
	}

	// The log holds every confirmed decision, numbered without a gap, and
	// its last change of each requirement is the record's review.
	data, err = os.ReadFile(filepath.Join(dir, "review", "decisions.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	entries, err := jsonl.Parse[reviewlog.Entry]("decisions.jsonl", data)
	if err != nil {
		t.Fatal(err)
	}
	logged := map[string][]string{}
	last := map[string]reviewlog.Entry{}
	for i, e := range entries {
		if e.Seq != i+1 || e.Version != len(logged[e.Requirement])+1 {
			t.Errorf("entry %d: seq %d, version %d after %d of %s", i+1, e.Seq, e.Version, len(logged[e.Requirement]), e.Requirement)
		}
		logged[e.Requirement] = append(logged[e.Requirement], e.Note)
		last[e.Requirement] = e
	}
	for id, notes := range confirmed {
		for _, note := range notes {
			if !slices.Contains(logged[id], note) {
				t.Errorf("%s: the confirmed %q is not in the log", id, note)
			}
		}
		final, _ := os.ReadFile(filepath.Join(dir, "requirements", "req_"+strings.TrimPrefix(id, "REQ-"), "final.json"))
		var rec requirement.Record
		json.Unmarshal(final, &rec)
		a, _ := json.Marshal(rec.Review)
		b, _ := json.Marshal(last[id].After)
		if string(a) != string(b) {
			t.Errorf("%s: the record's review %s is not the log's last %s", id, a, b)
		}
	}
}

// send posts a JSON body to a path of the review with the headers given
// as name, value pairs, and returns the status and the answer.
func (s *reviewServer) send(t *testing.T, method, path, body string, headers ...string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(method, s.url+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var v map[string]any
	json.NewDecoder(res.Body).Decode(&v)
	return res.StatusCode, v
}

// The review's log: reviewers named in each change, undo, and the audit
// export of every change.
func TestReviewLogAndAuditExport(t *testing.T) {
	t.Parallel()
	dir := runBuiltin(t, "../../testdata/sample/retention-policy.pdf", "audit")
	root := filepath.Dir(dir)
	srv := startReview(t, "--workspace", root, "--job", "audit", "--reviewers", "alice,bob")
	for _, c := range []struct {
		path, body string
		status     int
	}{
		{"api/requirements/REQ-001/review", `{"decision": "accepted", "reviewer": "alice"}`, 200},
		{"api/requirements/REQ-002/review", `{"decision": "rejected", "note": "=HYPERLINK(\"http://x\")", "reviewer": "bob"}`, 200},
		{"api/requirements/REQ-002/undo", `{"reviewer": "alice"}`, 200},
		{"api/requirements/REQ-003/review", `{"decision": "accepted", "reviewer": "mallory"}`, 400},
		{"api/requirements/REQ-003/review", `{"decision": "accepted"}`, 400}, // $USER is not among them
		{"api/review/bulk", `{"ids": ["REQ-003", "REQ-004"], "decision": "accepted", "reviewer": "bob"}`, 200},
	} {
		if status, v := srv.send(t, "POST", c.path, c.body); status != c.status {
			t.Errorf("%s %s: %d %v", c.path, c.body, status, v)
		}
	}
	if srv.stop(t) != 0 {
		t.Fatal(srv.stderr.String())
	}
	code, out, stderr := cli(t, "export", "--workspace", root, "--job", "audit", "--format", "audit-json")
	var entries []map[string]any
	if err := json.Unmarshal([]byte(out), &entries); code != 0 || err != nil || len(entries) != 5 {
		t.Fatalf("audit-json: exit %d %v %s %s", code, err, out, stderr)
	}
	if entries[1]["reviewer"] != "bob" || entries[2]["action"] != "undo" || entries[2]["undoes"] != 2.0 || entries[4]["action"] != "bulk" {
		t.Errorf("audit-json %v", entries)
	}
	file := filepath.Join(t.TempDir(), "log.csv")
	if code, _, stderr := cli(t, "export", "--workspace", root, "--job", "audit", "--format", "audit-csv", "-o", file); code != 0 || !strings.Contains(stderr, "wrote 5 changes") {
		t.Fatalf("audit-csv: exit %d %s", code, stderr)
	}
	data, _ := os.ReadFile(file)
	if !strings.HasPrefix(string(data), "seq,time,reviewer,requirement,action,from,to,changes,note,version,undoes\n") ||
		!strings.Contains(string(data), `,rejected,,"'=HYPERLINK(""http://x"")",1,`) {
		t.Errorf("audit-csv:\n%s", data)
	}
	if code, _, stderr := cli(t, "export", "--workspace", root, "--job", "audit", "--format", "audit-csv", "--reviewed-only"); code != exitUsage {
		t.Errorf("audit with --reviewed-only: exit %d %s", code, stderr)
	}
}
