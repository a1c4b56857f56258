package ingest

// Planned is a file a batch ingest would read: its path, the document id it
// gets, and the source URL the caller named for it.
type Planned struct {
	Path       string
	DocumentID string
	// URL is Options.URL for a file, joined with the file's relative path
	// for a directory's; "" when the caller named none.
	URL string
}

// Plan expands paths into the files Run would ingest, with their document
// ids, by Run's rules (walks, hidden entries, Options.ID and Base,
// duplicate ids), without a store: ids an older build stored a file under
// (ids.go) are not looked for. What Run would fail or skip before reading
// a file comes back as results, as Run reports them. It is how a batch is
// sent to a running server file by file.
func Plan(paths []string, opts Options) ([]Planned, []*Result, error) {
	sources, results, err := collect(nil, paths, opts)
	if err != nil {
		return nil, nil, err
	}
	planned := make([]Planned, len(sources))
	for i, s := range sources {
		planned[i] = Planned{Path: s.path, DocumentID: s.id}
		if s.urlSet {
			planned[i].URL = s.url
		}
	}
	return planned, results, nil
}
