package export

import (
	"bytes"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"
)

// The workbook has the CSV's columns and the section, one row per
// requirement, numbers as numbers.
func TestXLSX(t *testing.T) {
	t.Parallel()
	src := sample()
	data, err := Render("xlsx", src)
	if err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenReader(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("not a workbook: %v", err)
	}
	defer f.Close()
	rows, err := f.GetRows("Requirements")
	if err != nil || len(rows) != len(src.Records)+1 {
		t.Fatalf("%d rows, %v; want a header and %d", len(rows), err, len(src.Records))
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	for _, name := range []string{"id", "text", "quotes", "pages", "confidence", "source_id", "attributes", "section"} {
		if _, ok := col[name]; !ok {
			t.Errorf("no column %s in %v", name, rows[0])
		}
	}
	first := rows[1]
	if first[col["id"]] != "REQ-001" || first[col["source_id"]] != "BK-01" || !strings.Contains(first[col["section"]], "3.1 Belege") ||
		first[col["quotes"]] != "Rechnungen sind aufzubewahren." {
		t.Errorf("first row: %q", first)
	}
	cell, _ := excelize.CoordinatesToCellName(col["confidence"]+1, 2)
	if typ, err := f.GetCellType("Requirements", cell); err != nil || typ != excelize.CellTypeNumber && typ != excelize.CellTypeUnset {
		t.Errorf("confidence is not a number: %v, %v", typ, err)
	}
}
