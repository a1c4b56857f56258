package verify

// ResetScanCache empties the cache of evidence scans, for benchmarks of
// the first citation of a sentence.
func ResetScanCache() { contextScans.reset() }
