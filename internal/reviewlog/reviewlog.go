// Package reviewlog is the append-only record of a job's review: every
// change of a requirement's review (review/decisions.jsonl) and the
// reviewers' comments (review/comments.jsonl), one JSON object a line
// (docs/review.md, "The decision log"), read and appended as every log is
// (internal/jsonl).
package reviewlog

import (
	"creator/internal/requirement"
)

// The files of the log, in the job folder.
const (
	DecisionsFile = "review/decisions.jsonl"
	CommentsFile  = "review/comments.jsonl"
)

// Actions of an entry.
const (
	Decision = "decision"
	Undo     = "undo"
	Bulk     = "bulk"
)

// Entry is one change of one requirement's review.
type Entry struct {
	// Seq numbers the entries of the job from 1.
	Seq int `json:"seq"`
	// Time is when the change was made (RFC 3339, UTC).
	Time        string `json:"time"`
	Reviewer    string `json:"reviewer"`
	Requirement string `json:"requirement"`
	// Action is Decision, Undo or Bulk.
	Action string `json:"action"`
	// From and To are the review statuses before and after.
	From string `json:"from"`
	To   string `json:"to"`
	// Changes are the fields the change gave another value.
	Changes map[string]Change `json:"changes,omitempty"`
	// Note is the decision's note; for an undo, the note it brings back.
	Note string `json:"note,omitempty"`
	// Version is the requirement's version after the change: the number
	// of entries of the requirement so far.
	Version int `json:"version"`
	// Undoes is the Seq of the entry an undo takes back.
	Undoes int `json:"undoes,omitempty"`
	// Before and After are the record's review before and after the
	// change, as final.json holds it (null: none, pending).
	Before *requirement.Review `json:"before"`
	After  *requirement.Review `json:"after"`
}

// Change is a field's value before and after an entry.
type Change struct {
	Old string `json:"old"`
	New string `json:"new"`
}

// Comment is a reviewer's comment on a requirement.
type Comment struct {
	// ID numbers the comments of the job from 1.
	ID          int    `json:"id"`
	Requirement string `json:"requirement"`
	Time        string `json:"time"`
	Reviewer    string `json:"reviewer"`
	Text        string `json:"text"`
}
