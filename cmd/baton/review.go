package main

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/baton-lab/baton/experiment"
	"github.com/baton-lab/baton/reports"
)

func newReviewCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "review",
		Short: "Blinded human review: export a sample, import labels, compute agreement",
		Long: `Human review of a run, for agreement between the designs and people (Cohen's kappa).

  baton review export RUN_DIR                        writes RUN_DIR/review/sample.csv and pack.html
  baton review import RUN_DIR --reviewer NAME FILE   reads sample_id,verdict (pass or fail)

The sample is stratified (the clean build and every class, flagged by some design
and not) and shuffled with the run's seed; no build, mutant or design id is
visible. With two reviewers imported, the reports show kappa of each design
against each reviewer and between the reviewers.`,
	}
	var size int
	export := &cobra.Command{
		Use:   "export RUN_DIR",
		Short: "Write a blinded, stratified review sample: review/sample.csv and review/pack.html",
		Args:  exactArgs(1, "one RUN_DIR"),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := args[0]
			release, err := experiment.LockRun(dir)
			if err != nil {
				return err
			}
			defer release()
			m, err := experiment.VerifyRun(dir)
			if err != nil {
				return err
			}
			n := size
			if n == 0 && m.Settings != nil {
				n = m.Settings.ReviewSample
			}
			if n <= 0 {
				return &usageError{fmt.Errorf("--size %d: want a sample of at least 1", n)}
			}
			pick := func(all []reports.ReviewCandidate) []reports.ReviewCandidate {
				return reports.SampleReview(all, n, m.Seed)
			}
			reg, err := missions()
			if err != nil {
				return err
			}
			cands, err := experiment.ReviewCandidates(reg, dir, pick)
			if err != nil {
				return err
			}
			if err := reports.ExportReview(dir, cands, n, m.Seed); err != nil {
				return err
			}
			fmt.Fprintf(g.stdout, "%d samples: %s and %s\nreviewers fill the verdict column with pass or fail, then: baton review import %s --reviewer NAME FILE\n",
				len(cands), filepath.Join(dir, "review", "sample.csv"), filepath.Join(dir, "review", "pack.html"), dir)
			return nil
		},
	}
	export.Flags().IntVar(&size, "size", 0, "sample size (default: the protocol's review_sample)")

	var reviewer string
	var replace bool
	imp := &cobra.Command{
		Use:   "import RUN_DIR --reviewer NAME FILE.csv",
		Short: "Import one reviewer's labels (sample_id,verdict with pass or fail) and re-render the reports",
		Args:  exactArgs(2, "RUN_DIR and a labels FILE.csv"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if reviewer == "" {
				return &usageError{fmt.Errorf("--reviewer NAME is required")}
			}
			dir := args[0]
			release, err := experiment.LockRun(dir)
			if err != nil {
				return err
			}
			defer release()
			man, err := experiment.VerifyRun(dir)
			if err != nil {
				return err
			}
			sum, err := reports.ImportReview(dir, reviewer, args[1], reports.ImportOptions{Replace: replace})
			if err != nil {
				return err
			}
			if w := sum.Warning(); w != "" {
				log, err := g.logger()
				if err != nil {
					return err
				}
				log.Warn().Str("reviewer", reviewer).Int("labelled", sum.Labelled).Int("sample", sum.Sample).Msg(w)
			}
			r, err := rerender(dir, man)
			if err != nil {
				return err
			}
			verb := "imported"
			if sum.Replaced {
				verb = "replaced"
			}
			fmt.Fprintf(g.stdout, "%s %s's labels (%d of %d samples); %d agreement rows in %s\n", verb, reviewer, sum.Labelled, sum.Sample, len(r.Agreement), filepath.Join(dir, "report.md"))
			return nil
		},
	}
	imp.Flags().StringVar(&reviewer, "reviewer", "", "the reviewer's name (letters, digits, - and _)")
	imp.Flags().BoolVar(&replace, "replace", false, "replace the labels of a reviewer imported before (without it a second import is refused)")
	cmd.AddCommand(export, imp)
	return cmd
}
