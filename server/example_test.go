package server_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"

	"github.com/evidence-rag/evidence/ingest"
	"github.com/evidence-rag/evidence/server"
	"github.com/evidence-rag/evidence/store"
)

// The service mounted in another program's mux, over a store it opened:
// a Server is an http.Handler.
func Example() {
	dir, err := os.MkdirTemp("", "evidence-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	db, err := store.Open(filepath.Join(dir, "evidence.db"), nil)
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	doc := filepath.Join(dir, "policy.md")
	if err := os.WriteFile(doc, []byte("# Policy\n\nSubmit expense reports within 14 days.\n"), 0o600); err != nil {
		log.Fatal(err)
	}
	if _, err := ingest.Run(context.Background(), db, []string{doc}, ingest.Options{}); err != nil {
		log.Fatal(err)
	}

	srv := server.New(db, server.Options{ErrorLog: io.Discard}) // no tokens: loopback only
	defer srv.Close()
	mux := http.NewServeMux()
	mux.Handle("/evidence/", http.StripPrefix("/evidence", srv))
	ts := httptest.NewServer(mux)
	defer ts.Close()

	resp, err := http.Get(ts.URL + "/evidence/v1/documents")
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Println(resp.StatusCode, strings.Contains(string(body), `"document_id":"policy.md"`))
	// Output: 200 true
}
