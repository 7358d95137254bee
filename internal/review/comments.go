package review

import (
	"strings"

	"creator/internal/jsonl"
	"creator/internal/reviewlog"
)

// maxComment bounds a comment's text, in bytes.
const maxComment = 8 << 10

// Comments are the comments on requirement id, oldest first.
func (s *Service) Comments(id string) ([]reviewlog.Comment, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.loadFor(id); err != nil {
		return nil, err
	}
	out := []reviewlog.Comment{}
	for _, c := range s.comments {
		if c.Requirement == id {
			out = append(out, c)
		}
	}
	return out, nil
}

// Comment adds a reviewer's comment on requirement id to the review's
// comments (review/comments.jsonl, append-only). The text is read as a
// decision's note is (typedText): it keeps its lines and tabs; other
// control characters and bidirectional formatting characters are refused.
func (s *Service) Comment(id, reviewer, text string) (reviewlog.Comment, error) {
	text = strings.TrimSpace(text)
	switch {
	case text == "":
		return reviewlog.Comment{}, inputErrorf("\"text\" is empty: a comment needs its text")
	case len(text) > maxComment:
		return reviewlog.Comment{}, inputErrorf("the comment is %d bytes long; keep it to %d", len(text), maxComment)
	}
	text, err := typedText(`"text"`, text)
	if err != nil {
		return reviewlog.Comment{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.load(); err != nil {
		return reviewlog.Comment{}, err
	}
	who, err := s.reviewer(strings.TrimSpace(reviewer))
	if err != nil {
		return reviewlog.Comment{}, err
	}
	if _, err := s.record(id); err != nil {
		return reviewlog.Comment{}, err
	}
	c := reviewlog.Comment{ID: 1, Requirement: id, Time: s.now(), Reviewer: who, Text: text}
	if n := len(s.comments); n > 0 {
		c.ID = s.comments[n-1].ID + 1 // as history.nextSeq: one past the last
	}
	line, err := jsonl.Line(c)
	if err != nil {
		return reviewlog.Comment{}, err
	}
	if err := s.cfg.Files.AppendInternal(reviewlog.CommentsFile, line); err != nil {
		return reviewlog.Comment{}, err
	}
	s.comments = append(s.comments, c)
	return c, nil
}
