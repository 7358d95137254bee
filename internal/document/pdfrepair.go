package document

import (
	"bytes"
	"fmt"
	"io"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
)

// repairPDF rebuilds a PDF whose cross-reference table is damaged or
// missing (a download cut off before its end, a file edited by hand):
// pdfcpu reads the objects where they stand, as qpdf and poppler do, and
// writes the file anew. The repaired file is what is read; the text is
// the text of the same file repaired by other tools.
func repairPDF(r io.ReaderAt, size int64) (repaired []byte, err error) {
	defer func() {
		if v := recover(); v != nil {
			repaired, err = nil, fmt.Errorf("%v", v)
		}
	}()
	conf := model.NewDefaultConfiguration()
	conf.ValidationMode = model.ValidationRelaxed
	ctx, err := api.ReadContext(io.NewSectionReader(r, 0, size), conf)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := api.WriteContext(ctx, &out); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}
