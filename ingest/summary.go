package ingest

// Tally recounts a summary's totals from its results, for a summary built
// from results that were made elsewhere (ingests through `evidence serve`).
func (sum *Summary) Tally() {
	*sum = Summary{Results: sum.Results, DryRun: sum.DryRun}
	sum.total()
}
