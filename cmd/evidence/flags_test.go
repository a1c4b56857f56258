package main

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/evidence-rag/evidence/ingest"
)

// TestFlagHelp checks the help of every flag of every command: it says
// what the flag does (a phrase, not a word), and --server names its value
// URL, not the words of the help that pflag would take for a placeholder.
func TestFlagHelp(t *testing.T) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if f.Name == "help" {
				return
			}
			name, usage := pflag.UnquoteUsage(f)
			if len(strings.Fields(usage)) < 3 {
				t.Errorf("%s --%s: help %q says too little", c.CommandPath(), f.Name, f.Usage)
			}
			if f.Name == "server" && name != "URL" {
				t.Errorf("%s --server: placeholder %q, want URL", c.CommandPath(), name)
			}
			if strings.Contains(name, " ") {
				t.Errorf("%s --%s: placeholder %q is words of the help", c.CommandPath(), f.Name, name)
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRootCommand(nil, nil))
}

// TestChunkFlags checks the ranges of the chunk settings and their
// messages: the allowed values named, the default overlap fitted.
func TestChunkFlags(t *testing.T) {
	for _, tt := range []struct {
		args    []string
		overlap int    // after the check, when it passes
		err     string // "" when it passes
	}{
		{nil, 100, ""},
		{[]string{"--chunk-size", "1"}, 0, ""},
		{[]string{"--chunk-size", "100"}, 49, ""},  // the default overlap fits itself
		{[]string{"--chunk-size", "150"}, 100, ""}, // and is kept where it is below the size (version ids stay)
		{[]string{"--chunk-size", "0"}, 0, "--chunk-size 0: want a chunk size of 1 or more code points"},
		{[]string{"--chunk-size", "-5"}, 0, "--chunk-size -5: want a chunk size of 1 or more code points"},
		{[]string{"--chunk-size", "100", "--overlap", "49"}, 49, ""},
		{[]string{"--chunk-size", "100", "--overlap", "50"}, 0, "--overlap 50: want 0 to 49 code points with --chunk-size 100"},
		{[]string{"--chunk-size", "100", "--overlap", "100"}, 0, "--overlap 100: want 0 to 49"},
		{[]string{"--overlap", "-1"}, 0, "--overlap -1: want 0 to 499"},
		{[]string{"--chunks-format", "LangChain"}, 0, `--chunks-format "LangChain": want one of auto, generic, langchain, llamaindex, haystack`},
	} {
		cmd := newRebuildCommand(&options{})
		if err := cmd.ParseFlags(tt.args); err != nil {
			t.Fatal(err)
		}
		size, _ := cmd.Flags().GetInt("chunk-size")
		overlap, _ := cmd.Flags().GetInt("overlap")
		opts := ingest.ChunkOptions{Size: size, Overlap: overlap}
		err := checkChunkFlags(cmd.Flags(), &opts)
		switch {
		case tt.err == "" && err != nil:
			t.Errorf("%v: %v, want no error", tt.args, err)
		case tt.err == "" && opts.Overlap != tt.overlap:
			t.Errorf("%v: overlap %d, want %d", tt.args, opts.Overlap, tt.overlap)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err) || exitCode(err) != exitUsage):
			t.Errorf("%v: error %v (exit %d), want %q (exit %d)", tt.args, err, exitCode(err), tt.err, exitUsage)
		}
	}
}
