package main

import (
	"bufio"
	"bytes"
	"cmp"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/evidence-rag/evidence/store"
)

const reviewHelp = `A review file is JSON Lines, one judged claim a line: trace_id, request_id, claim_id, judge, claim,
evidence (the accepted spans the judge was shown: chunk_id, document_id, document_version, page_number,
source_start, source_end, text), verdict (the judge's label, score, fragment; absent with --blind),
human_label and note. A reviewer sets human_label to one of

  supported      the evidence states what the claim says
  contradicted   the evidence says otherwise
  not_addressed  the evidence neither states nor contradicts it

(the judge's own vocabulary), may write a note, and leaves human_label "" for claims not reviewed.`

func newReviewCommand(o *options) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "review",
		Short: "Compare the model judge's verdicts with human labels: sample, record, stats",
		Long: `review measures the model judge against people: sample writes a stratified sample of judged claims
to a file a person fills in, record stores the labels, stats prints each judge's agreement with them
(accuracy, Cohen's kappa, confusion matrix, per-label precision and recall).

` + reviewHelp,
	}
	cmd.AddCommand(newReviewSampleCommand(o), newReviewRecordCommand(o), newReviewStatsCommand(o))
	return cmd
}

func newReviewSampleCommand(o *options) *cobra.Command {
	var n int
	var since, out string
	var seed uint64
	var blind bool
	cmd := &cobra.Command{
		Use:   "sample --n N [--since T] [--out FILE] [--seed S]",
		Short: "Write a stratified sample of judged claims for a person to label",
		Long: `sample reads the stored verification traces (those made since --since), takes every claim a judge
gave a verdict (a label, no error), and draws --n of them stratified by judge id and label: each
non-empty stratum gets one claim when N allows, the rest are shared in proportion to the strata's sizes.
The same --seed over the same traces draws the same claims; without --seed a random one is used and
reported. Items are written as JSON Lines to stdout, or to --out (never over an existing file: it may
hold labels), in an order that mixes the strata; the summary goes to stderr, or to stdout with --out.

` + reviewHelp,
		Args: argsBetween(0, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !cmd.Flags().Changed("n") {
				return usagef("review sample: --n is required")
			}
			if n < 1 || n > maxReviewSample {
				return usagef("review sample: --n %d: want 1 to %d", n, maxReviewSample)
			}
			var from time.Time
			if since != "" {
				var err error
				if from, err = parseSince(since, time.Now()); err != nil {
					return usageError{err}
				}
			}
			if !cmd.Flags().Changed("seed") {
				var b [8]byte
				if _, err := rand.Read(b[:]); err != nil {
					return err
				}
				seed = binary.BigEndian.Uint64(b[:]) >> 1 // fits an int64 for programs that read it
			}
			db, err := o.openStore(true)
			if err != nil {
				return err
			}
			defer db.Close()
			items, sum, err := sampleJudged(db, n, from, seed, blind)
			if err != nil {
				return err
			}
			w, report := o.stdout, o.stderr
			if out != "" && len(items) == 0 {
				report = o.stdout // nothing to write: no empty file to stand in the way of the next sample
			} else if out != "" {
				f, err := os.OpenFile(out, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
				if errors.Is(err, os.ErrExist) {
					return usagef("review sample: %s exists and may hold labels: remove it or choose another --out", out)
				}
				if err != nil {
					return err
				}
				bw := bufio.NewWriter(f)
				err = writeReviewItems(bw, items)
				if err == nil {
					err = bw.Flush()
				}
				if cerr := f.Close(); err == nil {
					err = cerr
				}
				if err != nil {
					os.Remove(out)
					return fmt.Errorf("writing %s: %w", out, err)
				}
				sum.Out, report = out, o.stdout
			} else if err := writeReviewItems(w, items); err != nil {
				return err
			}
			if o.json {
				return (&options{stdout: report}).emit(sum)
			}
			printSampleSummary(report, sum)
			return nil
		},
	}
	cmd.Flags().IntVar(&n, "n", 0, "sample `N` judged claims (required)")
	cmd.Flags().StringVar(&since, "since", "", "sample only traces made since this `TIME`: RFC 3339 (2026-11-30T00:00:00Z) or a duration before now (24h, 90m, 7d)")
	cmd.Flags().StringVar(&out, "out", "", "write the items to this new `FILE` (mode 0600) instead of stdout")
	cmd.Flags().Uint64Var(&seed, "seed", 0, "sampling `SEED`: the same seed over the same traces draws the same claims (default random, reported)")
	cmd.Flags().BoolVar(&blind, "blind", false, "leave the judge's verdict out of the items, so the reviewer is not swayed by it")
	snapshotFlag(cmd, o)
	return cmd
}

func writeReviewItems(w io.Writer, items []*reviewItem) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, it := range items {
		if err := enc.Encode(it); err != nil {
			return err
		}
	}
	return nil
}

func printSampleSummary(w io.Writer, s *sampleSummary) {
	where := "stdout"
	if s.Out != "" {
		where = s.Out
	}
	if s.Population == 0 {
		fmt.Fprintf(w, "no judged claims to sample")
		if s.Since != nil {
			fmt.Fprintf(w, " since %s", s.Since.Format(time.RFC3339))
		}
		fmt.Fprintf(w, " (%s with an error or no label); nothing written\n", plural(s.Unreviewable, "verdict"))
		return
	}
	strata := plural(len(s.Strata), "stratum")
	if len(s.Strata) != 1 {
		strata = fmt.Sprintf("%d strata", len(s.Strata))
	}
	fmt.Fprintf(w, "sampled %d of %s in %s to %s (seed %d)\n", s.Sampled, plural(s.Population, "judged claim"), strata, where, s.Seed)
	for _, st := range s.Strata {
		fmt.Fprintf(w, "  %-20s %-14s %6d of %d\n", st.Judge, st.Label, st.Sampled, st.Population)
	}
	if s.Unreviewable > 0 {
		fmt.Fprintf(w, "%s left out: an error, no label, or an unknown label\n", plural(s.Unreviewable, "verdict"))
	}
	fmt.Fprintf(w, "set human_label to %s, then: evidence review record FILE\n", labelList)
}

// maxReviewLine bounds one line of a review file.
const maxReviewLine = 16 << 20

// recordResult is what `review record` did with a file.
type recordResult struct {
	File      string      `json:"file"`
	Added     int         `json:"added"`
	Replaced  int         `json:"replaced"`
	Unchanged int         `json:"unchanged"`
	Skipped   int         `json:"skipped"` // items with an empty human_label
	Errors    []lineError `json:"errors"`
}

type lineError struct {
	Line  int    `json:"line"`
	Error string `json:"error"`
}

func newReviewRecordCommand(o *options) *cobra.Command {
	return &cobra.Command{
		Use:   "record FILE|-",
		Short: "Store the human labels of a filled-in review file",
		Long: `record reads a file written by review sample and filled in by a person, and stores each labelled item
as a review of (trace_id, claim_id), with the judge id and label of the stored trace, the human label,
the note and the time. Recording the same item again replaces its review: a file can be recorded again
after more labels are filled in. Items whose human_label is "" are skipped. A bad line (not JSON, an
unknown field, a label outside the vocabulary, a claim the store does not hold as judged, a verdict that
differs from the stored trace's, an item given twice) is reported with its line number and skipped; the
others are stored, and the exit code is then 3 (1 when no line could be recorded).

` + reviewHelp,
		Args: argsBetween(1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var in io.Reader = os.Stdin
			if args[0] != "-" {
				f, err := os.Open(args[0])
				if err != nil {
					return usageError{err}
				}
				defer f.Close()
				in = f
			}
			// Reviews name stored traces: a store that does not exist
			// holds none, and recording must not create one.
			if o.dbMissing() {
				return fmt.Errorf("%w: no store at %s (set --db to the store the sample was drawn from)", store.ErrNotFound, o.db)
			}
			db, err := o.openStore(false)
			if err != nil {
				return err
			}
			defer db.Close()
			res, err := recordReviews(db, in, time.Now().UTC())
			if err != nil {
				return err
			}
			res.File = args[0]
			if o.json {
				if err := o.emit(res); err != nil {
					return err
				}
			} else {
				for _, e := range res.Errors {
					fmt.Fprintf(o.stderr, "%s:%d: %s\n", args[0], e.Line, e.Error)
				}
				o.printf("recorded %s from %s: %d new, %d replaced, %d unchanged; %d skipped (no human_label), %s\n",
					plural(res.Added+res.Replaced+res.Unchanged, "review"), args[0], res.Added, res.Replaced, res.Unchanged, res.Skipped, plural(len(res.Errors), "bad line"))
			}
			switch {
			case len(res.Errors) > 0 && res.Added+res.Replaced+res.Unchanged == 0:
				return &exitStatus{code: exitError, msg: fmt.Sprintf("nothing recorded: %s in %s", plural(len(res.Errors), "bad line"), args[0])}
			case len(res.Errors) > 0:
				return &exitStatus{code: exitPartial, msg: fmt.Sprintf("%s in %s (the good ones are recorded)", plural(len(res.Errors), "bad line"), args[0])}
			}
			return nil
		},
	}
}

// recordReviews reads a review file and stores its labelled items in one
// transaction. A bad line is reported and skipped; err is set only when
// the file cannot be read or the store fails.
func recordReviews(db *store.DB, in io.Reader, now time.Time) (*recordResult, error) {
	res := &recordResult{Errors: []lineError{}}
	type pending struct {
		line int
		item reviewItem
	}
	var todo []pending
	seen := map[[2]string]int{}
	r := bufio.NewReaderSize(in, 64<<10)
	for line := 1; ; line++ {
		b, err := readReviewLine(r)
		if errors.Is(err, io.EOF) && b == nil {
			break
		}
		bad := func(format string, args ...any) {
			res.Errors = append(res.Errors, lineError{Line: line, Error: fmt.Sprintf(format, args...)})
		}
		var tooLong *lineTooLong
		switch {
		case errors.As(err, &tooLong):
			bad("line longer than %d bytes", maxReviewLine)
			continue
		case err != nil && !errors.Is(err, io.EOF):
			return nil, err
		}
		b = bytes.TrimSpace(b)
		if len(b) == 0 {
			continue
		}
		var it reviewItem
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&it); err != nil {
			bad("not a review item: %v", err)
			continue
		}
		if dec.InputOffset() != int64(len(b)) {
			bad("text after the item's JSON object")
			continue
		}
		switch {
		case it.TraceID == "" || it.ClaimID == "":
			bad("trace_id and claim_id are required")
			continue
		case it.HumanLabel == "":
			res.Skipped++
			continue
		case labelIndex(it.HumanLabel) < 0:
			bad("human_label %q: want %s", it.HumanLabel, labelList)
			continue
		}
		key := [2]string{it.TraceID, it.ClaimID}
		if first, ok := seen[key]; ok {
			bad("claim %q of trace %s is also on line %d", it.ClaimID, it.TraceID, first)
			continue
		}
		seen[key] = line
		todo = append(todo, pending{line, it})
	}

	var reviews []store.Review
	err := db.View(func(tx *store.Tx) error {
		for _, p := range todo {
			bad := func(format string, args ...any) {
				res.Errors = append(res.Errors, lineError{Line: p.line, Error: fmt.Sprintf(format, args...)})
			}
			it := &p.item
			t, err := readJudgedTrace(tx, it.TraceID)
			if errors.Is(err, store.ErrNotFound) {
				bad("trace %s is not in this store", it.TraceID)
				continue
			}
			if err != nil {
				bad("%v", err)
				continue
			}
			stored, err := t.item(it.ClaimID, false)
			if err != nil {
				bad("%v", err)
				continue
			}
			if it.Judge != stored.Judge || (it.Verdict != nil && it.Verdict.Label != stored.Verdict.Label) {
				label := ""
				if it.Verdict != nil {
					label = it.Verdict.Label
				}
				bad("claim %q of trace %s: the item says judge %q label %q, the stored trace has judge %q label %q", it.ClaimID, it.TraceID,
					it.Judge, label, stored.Judge, stored.Verdict.Label)
				continue
			}
			reviews = append(reviews, store.Review{TraceID: it.TraceID, ClaimID: it.ClaimID, Judge: stored.Judge,
				JudgeLabel: stored.Verdict.Label, HumanLabel: it.HumanLabel, Note: it.Note, Recorded: now})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(res.Errors, func(a, b lineError) int { return cmp.Compare(a.Line, b.Line) })
	if len(reviews) == 0 {
		return res, nil
	}
	n, err := db.PutReviews(reviews)
	if err != nil {
		return nil, err
	}
	res.Added, res.Replaced, res.Unchanged = n.Added, n.Replaced, n.Unchanged
	return res, nil
}

type lineTooLong struct{}

func (*lineTooLong) Error() string { return "line too long" }

// readReviewLine returns the next line, its newline included; a line over
// maxReviewLine is read to its end and dropped, with a *lineTooLong. At
// the end of the input it returns the last unterminated line, if any, and
// io.EOF.
func readReviewLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(line)+len(chunk) > maxReviewLine+1 {
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = r.ReadSlice('\n')
			}
			if err != nil && !errors.Is(err, io.EOF) {
				return nil, err
			}
			return []byte{}, &lineTooLong{}
		}
		line = append(line, chunk...)
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if len(line) == 0 {
				return nil, io.EOF
			}
			return line, io.EOF
		case err != nil:
			return nil, err
		}
		return line, nil
	}
}

func newReviewStatsCommand(o *options) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "stats",
		Short: "Print each judge's agreement with the recorded human labels",
		Long: `stats compares, for each judge id, its verdicts with the human labels recorded by review record, the
human label taken as the truth: n, accuracy, Cohen's kappa (over the three labels; undefined, and
reported as null, when the expected agreement is 1), the confusion matrix (rows human, columns judge,
in the order supported, contradicted, not_addressed) and per-label precision and recall. --json for
programs.`,
		Args: argsBetween(0, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			db, err := o.openStore(true)
			if err != nil {
				return err
			}
			defer db.Close()
			st, err := computeReviewStats(db)
			if err != nil {
				return err
			}
			if o.json {
				return o.emit(st)
			}
			printReviewStats(o, st)
			return nil
		},
	}
	snapshotFlag(cmd, o)
	return cmd
}
