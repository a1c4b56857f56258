package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/verify"
)

func newVerifyCommand(o *options) *cobra.Command {
	var policyFile, principal, server string
	var noTrace bool
	var jf judgeFlags
	var pf providerFlags
	cmd := &cobra.Command{
		Use:   "verify FILE|-",
		Short: "Check every claim of an answer against the evidence it cites",
		Long: `verify reads the structured claims of an answer (JSON of docs/contract.md: request_id, principal, retrieved,
answer, claims with evidence) and checks each citation: it resolves, was retrieved, is readable by the
principal, is of an allowed version, and its quote and figures are in the stored span. It prints each
claim's status and disposition and the answer's disposition, with support and coverage rates kept apart,
and stores a trace (evidence trace show ID). A request without claims (retrieved, and retrieval_error
when retrieval failed) gets the answer's grounding and the sources it may cite, and nothing else is
checked. Exit code 0 when the answer is accepted, 3 otherwise.

With --judge URL (or a judge in the policy), a model judge is asked about each claim that passed every
check, shown only that claim and its own evidence; it can only downgrade a claim, and a judge that fails
or times out sends the claim to review. Verdicts are cached in the store (docs/judge.md).

With --from anthropic|openai|cohere|gemini, FILE is a provider's cited answer instead (a Messages API
response, a Responses API response or Assistants message, a Cohere chat response, a Gemini
generateContent response) and --map ties the provider's document keys to stored documents or chunks:
each cited part becomes a claim, each citation its evidence in the chunk(s) that hold what it cites, and
the mapped documents' chunks count as retrieved. Offsets are in the format's documented unit unless
--offset-unit says otherwise; quotes are re-checked against the stored text. A citation that cannot be
converted is a usage error naming it (docs/verify.md, Provider citation formats).`,
		Args: argsBetween(1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			pol := verify.DefaultPolicy()
			if policyFile != "" {
				var err error
				if pol, err = verify.LoadPolicy(policyFile); err != nil {
					return usageError{err}
				}
			}
			if server != "" && jf.set() {
				return usagef("--judge and --server: the server verifies with its own judge")
			}
			pol, err := jf.policy(pol)
			if err != nil {
				return err
			}
			var in io.Reader = os.Stdin
			if args[0] != "-" {
				f, err := os.Open(args[0])
				if err != nil {
					return usageError{err}
				}
				defer f.Close()
				in = f
			}
			prov, err := pf.input(in, args[0], principal, cmd.Flags().Changed("principal"))
			if err != nil {
				return err
			}
			var req *verify.Request
			switch {
			case prov != nil && pf.print:
				if server != "" {
					return usagef("--print-request and --server: the request is converted against a local store")
				}
				return printProviderRequest(o, prov)
			case prov == nil:
				if req, err = verify.ParseRequest(in); err != nil {
					return usageError{fmt.Errorf("%s: %w", args[0], err)}
				}
				if cmd.Flags().Changed("principal") {
					req.Principal = principal
				}
			}
			var rep *verify.Report
			switch {
			case server != "" && policyFile != "":
				return usagef("--policy and --server: the server verifies with its own policy")
			case server != "" && prov != nil:
				rep, err = serverVerifyFrom(server, prov, noTrace)
			case server != "":
				rep, err = serverVerify(server, req, noTrace)
			default:
				rep, err = storeVerify(o, req, prov, pol, noTrace)
			}
			if err != nil {
				return err
			}
			if o.json {
				if err := o.emit(rep); err != nil {
					return err
				}
			} else {
				printReport(o, rep)
			}
			if rep.Disposition != verify.AnswerAccept {
				return &exitStatus{code: exitPartial, msg: "answer disposition: " + rep.Disposition}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&policyFile, "policy", "", "verify with the policy of this `FILE` (JSON, or YAML when named .yaml or .yml); default: the built-in policy (verify/default-policy.json)")
	cmd.Flags().StringVar(&principal, "principal", "", "`PRINCIPAL` the answer is for, checked against each cited document's access list (overrides the request's)")
	cmd.Flags().BoolVar(&noTrace, "no-trace", false, "do not store a trace of the verification (opens the store read-only)")
	cmd.Flags().StringVar(&server, "server", defaultServer(), serverFlagHelp+"; the server's policy applies")
	jf.register(cmd.Flags())
	pf.register(cmd.Flags())
	return cmd
}

// storeVerify verifies against the local store; a provider's answer
// (prov, else nil) is converted against it first.
func storeVerify(o *options, req *verify.Request, prov *providerInput, pol *verify.Policy, noTrace bool) (*verify.Report, error) {
	db, err := o.openStore(noTrace)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	if prov != nil {
		if req, err = prov.request(db); err != nil {
			return nil, err
		}
	}
	pol = pol.WithJudgeCache(db, nil) // read-only (--no-trace), verdicts are read, not stored
	if noTrace {
		return verify.Check(context.Background(), db, req, pol)
	}
	return verify.Answer(context.Background(), db, req, pol)
}

// serverVerify asks a running server (POST /v1/verify); the request's
// principal goes in the body, where the token's binding is checked.
func serverVerify(server string, req *verify.Request, noTrace bool) (*verify.Report, error) {
	sc, err := newServerClient(server)
	if err != nil {
		return nil, err
	}
	body, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	path := "/v1/verify"
	if noTrace {
		path += "?trace=false"
	}
	rep := &verify.Report{}
	if err := sc.post(path, "", body, rep); err != nil {
		return nil, err
	}
	return rep, nil
}

func printReport(o *options, r *verify.Report) {
	o.printf("answer %s: %s", r.RequestID, strings.ToUpper(r.Disposition))
	if len(r.Reasons) > 0 {
		o.printf(" (%s)", strings.Join(r.Reasons, ", "))
	}
	o.printf("\n")
	if r.Grounding != "" {
		o.printf("grounding: %s\n", r.Grounding)
	}
	for _, s := range r.Sources {
		o.printf("  source %s %q: %s version %s (%s)", s.Label, s.Title, s.DocumentID, s.DocumentVersion, s.VersionStatus)
		if s.PageNumber > 0 {
			o.printf(" p.%d", s.PageNumber)
		}
		if len(s.EffectiveDates) > 0 {
			o.printf(" effective %s", strings.Join(s.EffectiveDates, ", "))
		}
		if s.URL != "" {
			o.printf(" %s", s.URL)
		}
		o.printf(" [chunks %s]\n", strings.Join(s.ChunkIDs, ", "))
	}
	for _, c := range r.Claims {
		o.printf("  claim %s: %s → %s", c.ClaimID, c.Status, c.Disposition)
		if len(c.Reasons) > 0 {
			o.printf(" [%s]", strings.Join(c.Reasons, ", "))
		}
		o.printf("\n")
		o.printf("    checks: %s; entailment: %s\n", strings.Join(c.Checks, ", "), c.Entailment)
		for _, f := range c.Findings {
			o.printf("    %s\n", f.Message)
		}
		if j := c.Judge; j != nil {
			if j.Error != "" {
				o.printf("    judge %s: %s\n", j.Judge, j.Error)
			} else {
				cached := ""
				if j.Cached {
					cached = ", cached"
				}
				o.printf("    judge %s: %s (score %.2f, %.0f ms%s)\n", j.Judge, j.Label, j.Score, j.LatencyMS, cached)
			}
		}
		for _, e := range c.Evidence {
			o.printf("    %s %s", e.ChunkID, e.Status)
			if e.Match != "" {
				o.printf(" match=%s", e.Match)
				if e.Distance > 0 {
					o.printf(" distance=%d", e.Distance)
				}
				if e.Elided {
					o.printf(" elided")
				}
			}
			if e.DocumentID != "" && e.Status != verify.EvidenceForbidden {
				o.printf(" %s p.%d [%d, %d)", e.DocumentID, e.PageNumber, e.SourceStart, e.SourceEnd)
			}
			if e.VersionStatus == string(store.StatusSuperseded) {
				o.printf(" superseded")
				if e.TextUnchanged {
					o.printf(", text unchanged in %s", e.CurrentVersion)
				}
			}
			if len(e.Reasons) > 0 {
				o.printf(" [%s]", strings.Join(e.Reasons, ", "))
			}
			if e.FoundIn != nil {
				o.printf(" (quote is in %s, page %d)", e.FoundIn.ChunkID, e.FoundIn.PageNumber)
			}
			o.printf("\n")
		}
	}
	for _, s := range r.UncitedSentences {
		o.printf("  uncited factual sentence [%d, %d): %q\n", s.Start, s.End, s.Text)
	}
	m := r.Metrics
	o.printf("citation support %.2f (%d/%d), claim coverage %.2f (%d/%d)\n", m.CitationSupportRate, m.AcceptedCitations, m.Citations,
		m.ClaimCoverageRate, m.SupportedClaims, m.ClaimsRequiringEvidence)
	f := r.Failures
	o.printf("failures: support %d, coverage %d, resolution %d, version %d, permission %d\n", f.Support, f.Coverage, f.Resolution, f.Version, f.Permission)
	if r.TraceID != "" {
		o.printf("trace %s\n", r.TraceID)
	}
}

func newTraceCommand(o *options) *cobra.Command {
	cmd := &cobra.Command{Use: "trace", Short: "Read back stored verification traces"}
	var server string
	show := &cobra.Command{
		Use:   "show TRACE_ID",
		Short: "Print a stored verification trace (request, report, time, store state) as JSON",
		Args:  argsBetween(1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if server != "" {
				sc, err := newServerClient(server)
				if err != nil {
					return err
				}
				var v any
				if err := sc.get("/v1/traces/"+url.PathEscape(args[0]), "", &v); err != nil {
					return err
				}
				return o.emit(v)
			}
			db, err := o.openStore(true)
			if err != nil {
				return err
			}
			defer db.Close()
			var b []byte
			if err := db.View(func(tx *store.Tx) error { b, err = tx.Trace(args[0]); return err }); err != nil {
				return err
			}
			var v any
			if err := json.Unmarshal(b, &v); err != nil {
				return errors.Join(store.ErrCorrupt, err)
			}
			return o.emit(v)
		},
	}
	show.Flags().StringVar(&server, "server", defaultServer(), serverFlagHelp)
	cmd.AddCommand(show)
	addTraceCommands(cmd, o)
	return cmd
}
