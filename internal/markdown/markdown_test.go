package markdown

import "testing"

func TestText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Invoices must be kept for 10 years.", "Invoices must be kept for 10 years."},
		{"<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;"},
		{`<img src=x onerror="alert(1)">`, `&lt;img src=x onerror="alert(1)"&gt;`},
		{"R&D and &lt; stay as written", "R&amp;D and &amp;lt; stay as written"},
		{"| fake | cell |", `\| fake \| cell \|`},
		{"# heading", `\# heading`},
		{"Use C# ##", `Use C\# \#\#`},
		{"[click](javascript:alert(1))", `\[click\](javascript:alert(1))`},
		{"![x](http://evil/p.png)", `!\[x\](http://evil/p.png)`},
		{"<http://evil>", "&lt;http://evil&gt;"},
		{"run `rm -rf` now", "run \\`rm -rf\\` now"},
		{"**bold** and *em*", `\*\*bold\*\* and \*em\*`},
		{"_em_ but snake_case and chunk_004 stay", `\_em\_ but snake_case and chunk_004 stay`},
		{"~~gone~~ 2^10^ $x$", `\~\~gone\~\~ 2\^10\^ \$x\$`},
		{`a \ backslash`, `a \\ backslash`},
		{"- a list item", `\- a list item`},
		{"+ another", `\+ another`},
		{"===", `\===`},
		{": a definition", `\: a definition`},
		{"1. first", `1\. first`},
		{"12) twelfth", `12\) twelfth`},
		{"1.5 mm wide", "1.5 mm wide"},
		{"> quoted", "&gt; quoted"},
		{"x - y + z = 1", "x - y + z = 1"},
		{"line one\nline two\r\n\tthree", "line one line two three"},
		{"evil\u202Etxt.exe and \u2066isolate\u2069", "evil\uFFFDtxt.exe and \uFFFDisolate\uFFFD"},
		{"nul\x00 bell\a del\x7f c1\u0085x", "nul\uFFFD bell\uFFFD del\uFFFD c1 x"},
		{`"quoted" and 'single'`, `"quoted" and 'single'`},
		{"Größe ≤ 5 — Überschrift", "Größe ≤ 5 — Überschrift"},
	} {
		if got := Text(c.in); got != c.want {
			t.Errorf("Text(%q) = %q; want %q", c.in, got, c.want)
		}
	}
}

// Invisible takes in, beyond Hidden's characters, every character that
// shows nothing of its own: format characters and the line and paragraph
// separators; no letter, mark, space or symbol.
func TestInvisible(t *testing.T) {
	t.Parallel()
	for _, r := range []rune{'\x00', '\x1b', '\u0085', '\u00AD', '\u061C', '\u180E', '\u200B', '\u200C', '\u200D', '\u200E', '\u200F',
		'\u2028', '\u2029', '\u202A', '\u202E', '\u2060', '\u2066', '\u2069', '\uFEFF', '\U000E0041'} {
		if !Invisible(r) {
			t.Errorf("U+%04X is not invisible", r)
		}
	}
	for _, r := range []rune{'a', 'ß', 'é', '\u0301', ' ', '\u00A0', '-', '\u05D0', '\u0627', '\u4E2D', '\U0001F600'} {
		if Invisible(r) {
			t.Errorf("U+%04X is invisible", r)
		}
	}
}
