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
