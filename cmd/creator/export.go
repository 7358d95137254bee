package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"creator/internal/atomicfile"
	"creator/internal/export"
	"creator/internal/humanize"
	jobpkg "creator/internal/job"
	"creator/internal/requirement"
)

// exportOptions are the flags of export.
type exportOptions struct {
	*globalOptions
	jobID, format, output string
	formatGiven           bool
	reviewedOnly          bool
}

func newExportCmd(g *globalOptions) *cobra.Command {
	o := &exportOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:   "export --job ID [--format json|csv|xlsx|md|reqif|cypher|audit-json|audit-csv] [-o FILE]",
		Short: "Write a job's requirements as JSON, CSV, XLSX, Markdown, ReqIF or Cypher",
		Long: `Write the requirements of a job (its output/requirements.json, written when
the job completes or stops at a budget) in another format:

  json   the list of requirement records, as in output/requirements.json
  csv    one row per requirement, with a header
  xlsx   an Excel workbook: the CSV's columns and the section of the source,
         one row per requirement, the header frozen and filterable
  md     Markdown for people, grouped by the section of the source
  reqif  ReqIF 1.2 (OMG Requirements Interchange Format) for DOORS, Polarion,
         Jama and other requirements tools: one SPEC-OBJECT per requirement
         with ReqIF.ForeignID, ReqIF.Name, ReqIF.Text, Type, Category,
         Priority, Frameworks, Source, Quote, Confidence and Rationale, and a
         SPECIFICATION per document with its sections as the hierarchy
  cypher Cypher statements for Neo4j (cypher-shell -f FILE), one a line:
         (:Document {name}), (:Section {document, path, title}) IN its
         parent section or document, (:Requirement {job, id, title, text,
         type, category, priority, frameworks, confidence, rationale}) and
         (:Requirement)-[:CITES {chunk, quote, page}]->(:Section|:Document);
         every node and relationship is MERGEd on its key, so loading the
         same export twice changes nothing

audit-json and audit-csv write the review's log instead (review/
decisions.jsonl): every change of every requirement's review, oldest first,
with who made it, when, the status before and after, the fields changed
and the note; the CSV one row per change, its cells kept from being read
as formulas.

Every format carries each requirement's review status (pending, accepted,
edited or rejected; see 'creator review') and the reviewer's note. With
--reviewed-only only the requirements a reviewer accepted, with or without
edits, are exported.

Without --format the format follows the extension of -o (.json, .csv, .xlsx,
.md, .reqif, .cypher, .cql); another extension is refused, and so is one that
names another format than --format; without -o or an extension, json. Without -o the export goes to stdout; a
file is written atomically.`,
		Example: `  creator export --job gobd --format reqif -o gobd.reqif
  creator export --job gobd -o gobd.csv
  creator export --job gobd --format md | less
  creator export --job gobd -o gobd.cypher && cypher-shell -f gobd.cypher
  creator export --job gobd --reviewed-only -o accepted.csv
  creator export --job gobd --format audit-csv -o review-log.csv`,
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.formatGiven = cmd.Flags().Changed("format")
			return runExport(o)
		},
	}
	cmd.Flags().StringVar(&o.jobID, "job", "", "id of the job")
	completeJobs(cmd, o.globalOptions)
	cmd.Flags().StringVar(&o.format, "format", "json", "json, csv, xlsx, md, reqif, cypher; audit-json or audit-csv for the review log")
	cmd.Flags().StringVarP(&o.output, "output", "o", "", "file to write (default: stdout)")
	cmd.Flags().BoolVar(&o.reviewedOnly, "reviewed-only", false, "export only the requirements a reviewer accepted (with or without edits)")
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions(export.AllFormats, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

func runExport(o *exportOptions) error {
	format := o.format
	byName, known := export.FormatOf(o.output)
	ext := strings.ToLower(filepath.Ext(o.output))
	switch {
	case !o.formatGiven && known:
		format = byName
	case !o.formatGiven && ext != "" && o.output != "-":
		return usageErrorf("-o %s: no format is written as %s; use one of the extensions .json, .csv, .xlsx, .md, .reqif, .cypher, or give --format", o.output, ext)
	case o.formatGiven && known && byName != strings.TrimPrefix(format, "audit-"):
		return usageErrorf("-o %s is named as %s, not %s: name the file for its format, or drop --format", o.output, byName, format)
	}
	audit := slices.Contains(export.AuditFormats, format)
	if !slices.Contains(export.AllFormats, format) {
		return usageErrorf("unknown format %q: use %s", format, strings.Join(export.AllFormats, ", "))
	}
	if audit && o.reviewedOnly {
		return usageErrorf("--reviewed-only is for the requirements; --format %s writes the review log, every change of every requirement", format)
	}
	job, err := o.openView(o.jobID)
	if err != nil {
		return err
	}
	defer job.Close()
	if audit {
		return exportAudit(o, job, format)
	}
	src, err := export.ForJob(job, o.now(), versionString())
	if err != nil {
		return err
	}
	if o.reviewedOnly {
		var left requirement.Tally
		src.Records, left = export.Approved(src.Records)
		if left.Total > 0 {
			fmt.Fprintf(o.streams.ErrOut, "creator: --reviewed-only leaves out %s: %d pending, %d rejected\n",
				humanize.Plural(left.Total, "requirement"), left.Pending, left.Rejected)
		}
	}
	out, err := export.Render(format, src)
	if err != nil {
		return err
	}
	return o.write(out, fmt.Sprintf("%d requirements", len(src.Records)), format)
}

// write puts out on stdout, or in --output and says so on stderr: "wrote
// <what> as <format> to <file>".
func (o *exportOptions) write(out []byte, what, format string) error {
	if o.output == "" || o.output == "-" {
		_, err := o.streams.Out.Write(out)
		return err
	}
	if err := atomicfile.Write(o.output, out, 0o644); err != nil {
		return fmt.Errorf("cannot write %s: %w", o.output, err)
	}
	fmt.Fprintf(o.streams.ErrOut, "creator: wrote %s as %s to %s\n", what, format, o.output)
	return nil
}

// exportAudit writes the job's review log (review/decisions.jsonl): every
// change of every requirement's review, oldest first.
func exportAudit(o *exportOptions, job *jobpkg.View, format string) error {
	out, changes, err := export.AuditOf(job, format)
	if err != nil {
		return err
	}
	return o.write(out, humanize.Plural(changes, "change")+" of the review", format)
}
