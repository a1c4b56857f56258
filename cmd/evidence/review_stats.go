package main

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/evidence-rag/evidence/store"
)

// judgeAgreement is how one judge's verdicts agree with the human labels
// of the claims reviewed, taking the human label as the truth.
type judgeAgreement struct {
	Judge    string  `json:"judge"`
	N        int     `json:"n"`      // reviews of this judge's verdicts
	Agreed   int     `json:"agreed"` // human label = judge label
	Accuracy float64 `json:"accuracy"`
	// ExpectedAgreement is the agreement of two raters who kept these
	// label frequencies and labelled independently (Cohen's p_e).
	ExpectedAgreement float64 `json:"expected_agreement"`
	// Kappa is Cohen's κ = (p_o − p_e) / (1 − p_e); null when p_e = 1
	// (human and judge each gave one and the same label to every claim),
	// where it is undefined, as KappaUndefined says.
	Kappa          *float64 `json:"kappa"`
	KappaUndefined string   `json:"kappa_undefined,omitempty"`
	// Confusion counts reviews by human label (rows) and judge label
	// (columns), both in the order of the report's labels.
	Confusion [len(reviewLabels)][len(reviewLabels)]int `json:"confusion"`
	PerLabel  []labelAgreement                          `json:"per_label"`
}

// labelAgreement is one label's precision (of the judge's uses of it, the
// share a person agreed with) and recall (of the claims a person gave it,
// the share the judge found); null where nothing was counted.
type labelAgreement struct {
	Label     string   `json:"label"`
	Human     int      `json:"human"` // reviews a person gave this label (row sum)
	Judge     int      `json:"judge"` // reviews the judge gave it (column sum)
	Precision *float64 `json:"precision"`
	Recall    *float64 `json:"recall"`
}

type reviewStats struct {
	Labels  []string `json:"labels"`
	Reviews int      `json:"reviews"`
	// Ignored counts stored reviews with a label outside the vocabulary.
	Ignored int              `json:"ignored"`
	Judges  []judgeAgreement `json:"judges"`
}

// agreement computes the figures of one judge from its confusion matrix.
// κ is computed from integer counts, so p_e = 1 is found exactly:
// κ = (n·agreed − Σ rₖcₖ) / (n² − Σ rₖcₖ), with rₖ and cₖ the row and
// column sums.
func agreement(judge string, m [len(reviewLabels)][len(reviewLabels)]int) judgeAgreement {
	a := judgeAgreement{Judge: judge, Confusion: m}
	var rows, cols [len(reviewLabels)]int
	for h := range m {
		for j := range m[h] {
			rows[h] += m[h][j]
			cols[j] += m[h][j]
			a.N += m[h][j]
		}
		a.Agreed += m[h][h]
	}
	ratio := func(num, den int) *float64 {
		if den == 0 {
			return nil
		}
		v := float64(num) / float64(den)
		return &v
	}
	chance := 0 // Σ rₖcₖ
	for k := range rows {
		chance += rows[k] * cols[k]
		a.PerLabel = append(a.PerLabel, labelAgreement{Label: reviewLabels[k], Human: rows[k], Judge: cols[k],
			Precision: ratio(m[k][k], cols[k]), Recall: ratio(m[k][k], rows[k])})
	}
	if a.N == 0 {
		a.KappaUndefined = "no reviews"
		return a
	}
	a.Accuracy = float64(a.Agreed) / float64(a.N)
	a.ExpectedAgreement = float64(chance) / float64(a.N*a.N)
	if chance == a.N*a.N {
		a.KappaUndefined = "expected agreement is 1: human and judge gave every claim the same single label, so agreement beyond chance cannot be measured"
		return a
	}
	a.Kappa = ratio(a.N*a.Agreed-chance, a.N*a.N-chance)
	return a
}

// computeReviewStats reads every stored review and gives the agreement of
// each judge, in judge id order.
func computeReviewStats(db *store.DB) (*reviewStats, error) {
	st := &reviewStats{Labels: reviewLabels[:], Judges: []judgeAgreement{}}
	matrices := map[string]*[len(reviewLabels)][len(reviewLabels)]int{}
	err := db.View(func(tx *store.Tx) error {
		return tx.ForEachReview(func(r *store.Review) error {
			h, j := labelIndex(r.HumanLabel), labelIndex(r.JudgeLabel)
			if h < 0 || j < 0 {
				st.Ignored++
				return nil
			}
			st.Reviews++
			m := matrices[r.Judge]
			if m == nil {
				m = new([len(reviewLabels)][len(reviewLabels)]int)
				matrices[r.Judge] = m
			}
			m[h][j]++
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	for judge, m := range matrices {
		st.Judges = append(st.Judges, agreement(judge, *m))
	}
	slices.SortFunc(st.Judges, func(a, b judgeAgreement) int { return cmp.Compare(a.Judge, b.Judge) })
	return st, nil
}

func printReviewStats(o *options, st *reviewStats) {
	if len(st.Judges) == 0 {
		o.printf("no reviews recorded (evidence review sample, then evidence review record FILE)\n")
	}
	width := len("human \\ judge")
	for _, l := range reviewLabels {
		width = max(width, len(l))
	}
	for _, a := range st.Judges {
		o.printf("judge %s: %d reviewed, accuracy %.3f (%d/%d), ", a.Judge, a.N, a.Accuracy, a.Agreed, a.N)
		if a.Kappa != nil {
			o.printf("Cohen's kappa %.3f (expected agreement %.3f)\n", *a.Kappa, a.ExpectedAgreement)
		} else {
			o.printf("Cohen's kappa undefined: %s\n", a.KappaUndefined)
		}
		o.printf("  %-*s", width, "human \\ judge")
		for _, l := range reviewLabels {
			o.printf(" %*s", width, l)
		}
		o.printf("\n")
		for h, l := range reviewLabels {
			o.printf("  %-*s", width, l)
			for j := range reviewLabels {
				o.printf(" %*d", width, a.Confusion[h][j])
			}
			o.printf("\n")
		}
		o.printf("  %-*s %*s %*s\n", width, "label", width, "precision", width, "recall")
		for _, p := range a.PerLabel {
			o.printf("  %-*s %*s %*s\n", width, p.Label, width, fraction(p.Precision), width, fraction(p.Recall))
		}
	}
	if st.Ignored > 0 {
		o.printf("%s ignored: a label outside %s\n", plural(st.Ignored, "stored review"), strings.ReplaceAll(labelList, " | ", ", "))
	}
}

func fraction(v *float64) string {
	if v == nil {
		return "-"
	}
	return strconv.FormatFloat(*v, 'f', 3, 64)
}
