package export

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/xuri/excelize/v2"

	"creator/internal/document"
	"creator/internal/output"
)

// XLSX renders the requirements as an Excel workbook, for the auditors
// who open requirement tables there: one sheet, one row per requirement,
// the columns of the CSV and the section of the source, the header frozen
// and filterable, confidence and pages as numbers.
func XLSX(src Source) ([]byte, error) {
	f := excelize.NewFile()
	defer f.Close()
	const sheet = "Requirements"
	if err := f.SetSheetName(f.GetSheetName(0), sheet); err != nil {
		return nil, err
	}
	header := append(output.TableHeader(), "section")
	sw, err := f.NewStreamWriter(sheet)
	if err != nil {
		return nil, err
	}
	bold, err := f.NewStyle(&excelize.Style{Font: &excelize.Font{Bold: true}})
	if err != nil {
		return nil, err
	}
	wrap, err := f.NewStyle(&excelize.Style{Alignment: &excelize.Alignment{WrapText: true, Vertical: "top"}})
	if err != nil {
		return nil, err
	}
	widths := map[string]float64{"id": 10, "title": 40, "text": 70, "quotes": 70, "rationale": 40, "section": 40, "attributes": 24}
	for i, name := range header {
		w, ok := widths[name]
		if !ok {
			w = 14
		}
		if err := sw.SetColWidth(i+1, i+1, w); err != nil {
			return nil, err
		}
	}
	if err := sw.SetPanes(&excelize.Panes{Freeze: true, YSplit: 1, TopLeftCell: "A2", ActivePane: "bottomLeft"}); err != nil {
		return nil, err
	}
	row := make([]any, len(header))
	for i, h := range header {
		row[i] = excelize.Cell{StyleID: bold, Value: h}
	}
	if err := sw.SetRow("A1", row); err != nil {
		return nil, err
	}
	for n, r := range src.Records {
		cells := append(output.TableRow(r), strings.Join(src.SectionsOf(r), document.SectionSeparator))
		row := make([]any, len(cells))
		for i, c := range cells {
			row[i] = excelize.Cell{StyleID: wrap, Value: cellValue(header[i], c)}
		}
		cell, err := excelize.CoordinatesToCellName(1, n+2)
		if err != nil {
			return nil, err
		}
		if err := sw.SetRow(cell, row); err != nil {
			return nil, err
		}
	}
	last, err := excelize.CoordinatesToCellName(len(header), len(src.Records)+1)
	if err != nil {
		return nil, err
	}
	if err := sw.Flush(); err != nil {
		return nil, err
	}
	if err := f.AutoFilter(sheet, "A1:"+last, nil); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if _, err := f.WriteTo(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// cellValue is a cell as a number where the column holds one.
func cellValue(column, s string) any {
	switch column {
	case "confidence":
		if v, err := strconv.ParseFloat(s, 64); err == nil {
			return v
		}
	case "pages":
		if v, err := strconv.Atoi(s); err == nil {
			return v
		}
	}
	return s
}
