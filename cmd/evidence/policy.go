package main

import (
	"github.com/spf13/cobra"

	"github.com/evidence-rag/evidence/verify"
)

func newPolicyCommand(o *options) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "policy",
		Short: "Inspect verification policies",
		Args:  argsBetween(0, 0),
	}
	cmd.AddCommand(newPolicyShowCommand(o))
	return cmd
}

func newPolicyShowCommand(o *options) *cobra.Command {
	var policyFile string
	cmd := &cobra.Command{
		Use:   "show [--policy FILE]",
		Short: "Print the effective verification policy as JSON",
		Long: `policy show prints the policy that verify --policy FILE and serve --policy FILE apply: the
built-in default (verify/default-policy.json) with FILE's fields on top, every field spelled out.
A policy file extends the default unless it says "extends": "none": a field it gives replaces the
default's, an object (judge) merges field by field, a list (qualifiers) replaces the default's list
whole, null removes the default's value. The output is itself a policy file that means the same.`,
		Args: argsBetween(0, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			pol := verify.DefaultPolicy()
			if policyFile != "" {
				var err error
				if pol, err = verify.LoadPolicy(policyFile); err != nil {
					return usageError{err}
				}
			}
			return o.emit(effectivePolicy(pol))
		},
	}
	cmd.Flags().StringVar(&policyFile, "policy", "", "policy file (JSON, or YAML when named .yaml or .yml); default: the built-in policy")
	return cmd
}

// effectivePolicy returns a copy of pol with the switches it leaves unset
// spelled out as the values they stand for.
func effectivePolicy(pol *verify.Policy) *verify.Policy {
	q := *pol
	on := true
	if q.AllowFuzzy == nil {
		q.AllowFuzzy = &on
	}
	if q.MeaningChecks == nil {
		q.MeaningChecks = &on
	}
	return &q
}
