package document

import (
	"os"
	"path/filepath"
	"testing"
)

func TestExtractMarkdown(t *testing.T) {
	t.Parallel()
	src := "# Baseline\n\n## 1. Legacy Authentication\n\n### Policies\n#### AB.CDE.1.1v1\nLegacy authentication **SHALL** be\nblocked.\n\n" +
		"[![Automated Check](https://img.shields.io/badge/Automated_Check-5E9732)](#key-terminology)\n\n" +
		"<!--Policy: AB.CDE.1.1v1; Criticality: SHALL -->\n" +
		"- _Rationale:_ Blocking legacy protocols reduces the impact of [credential theft](https://example.org/theft).\n" +
		"- _MITRE ATT&CK TTP Mapping:_\n  - [T1110: Brute Force](https://attack.mitre.org/techniques/T1110/)\n    - T1110.001: Password Guessing\n\n" +
		"### Resources\n\n- [Block legacy authentication](https://example.org/a)\n\n- [Five steps](https://example.org/b)\n\n" +
		"| ID | Requirement |\n|----|-------------|\n| FR-1 | The system `SHALL` log ~~all~~ each sign-in. |\n\n" +
		"```\n# not a heading\nconfig = 1\n```\n\n1. Create a policy\n2. Turn it on\n"
	dir := t.TempDir()
	path := filepath.Join(dir, "baseline.md")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	doc, err := Extract(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := `# Baseline

## 1. Legacy Authentication

### Policies

#### AB.CDE.1.1v1

Legacy authentication SHALL be
blocked.

- Rationale: Blocking legacy protocols reduces the impact of credential theft.
- MITRE ATT&CK TTP Mapping:
  - T1110: Brute Force
    - T1110.001: Password Guessing

### Resources

- Block legacy authentication
- Five steps

| ID | Requirement |
|---|---|
| FR-1 | The system SHALL log all each sign-in. |

    # not a heading
config = 1

- Create a policy
- Turn it on
`
	if doc.Format != FormatMarkdown || doc.Paged {
		t.Errorf("format %q, paged %v", doc.Format, doc.Paged)
	}
	if got := doc.Text(); got != want {
		t.Errorf("text:\n%s\nwant:\n%s", got, want)
	}
}
