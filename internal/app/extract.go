package app

import (
	"context"
	"unicode/utf8"

	"creator/internal/document"
	"creator/internal/tokens"
)

// ExtractOptions are what creator extract takes.
type ExtractOptions struct {
	Document string
	MaxText  int64
	// PDFPassword is the one given; the environment's when empty.
	PDFPassword string
	// Tokens asks for the text's tokens to be counted (o200k_base).
	Tokens bool
}

// Extraction is a document's text as the agent gets it, and its size.
type Extraction struct {
	Text       string
	Pages      int
	Characters int
	Tokens     int // counted only when asked for
	Notes      []string
}

// Extract reads a document's text as extract_document does.
func Extract(ctx context.Context, o ExtractOptions, getenv func(string) string) (Extraction, error) {
	// The token table is loaded only when the tokens are asked for (while
	// the document is read): loading it and counting took more time than
	// extracting (SP 800-53r3: 370 ms of CPU against 210).
	if o.Tokens {
		go tokens.Default()
	}
	doc, err := document.ExtractContext(ctx, o.Document, document.Options{MaxText: o.MaxText, Password: Secrets{PDFPassword: o.PDFPassword}.Password(getenv)})
	if err != nil {
		return Extraction{}, err
	}
	x := Extraction{Text: doc.Text(), Pages: len(doc.Pages), Notes: doc.Notes}
	x.Characters = utf8.RuneCountInString(x.Text)
	if o.Tokens {
		if x.Tokens, err = tokens.Default().CountContext(ctx, x.Text); err != nil {
			return Extraction{}, err
		}
	}
	return x, nil
}
