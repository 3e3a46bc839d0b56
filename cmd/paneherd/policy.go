package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"

	"github.com/paneherd/paneherd/internal/deliver"
	"github.com/paneherd/paneherd/internal/herd"
	"github.com/paneherd/paneherd/internal/policy"
	"github.com/paneherd/paneherd/internal/state"
	"github.com/paneherd/paneherd/packs"
)

var cmdPolicy = command{
	name:    "policy",
	summary: "check the policy file, or explain which rule decides a pane's dialog",
	usage:   "policy check [FILE]\npolicy explain [TARGET] [--json]",
	about: `  check [FILE]      validate a policy file (default: $XDG_CONFIG_HOME/paneherd/policy.toml);
                    errors name the file and line
  explain [TARGET]  read the pane's dialog now, as an automatic answer would, and say
                    which rule decides it and why (TARGET: default the pane waiting longest)

The daemon answers by the policy only with @paneherd-policy on (dry-run: it records
what it would do and presses nothing).`,
	link: "[policy.md](policy.md)",
	flags: func(fs *flag.FlagSet) runFunc {
		var asJSON bool
		fs.BoolVar(&asJSON, "json", false, `explain: print {"pane","pack","rule","kind","subject","inexact","decision"}`)
		return func(ctx context.Context, e *env, args []string) error {
			if len(args) == 0 {
				return usagef("policy needs a subcommand")
			}
			rest, err := parseFlags(fs, args[1:])
			if err != nil {
				return err
			}
			switch {
			case args[0] == "check" && len(rest) <= 1:
				return policyCheck(e, rest)
			case args[0] == "explain" && len(rest) <= 1:
				return policyExplain(ctx, e, rest, asJSON)
			}
			return usagef("unknown policy subcommand or arguments: %q", args)
		}
	},
}

// policyFile is FILE, else the policy's place.
func policyFile(e *env, args []string) string {
	if len(args) == 1 {
		return args[0]
	}
	return policy.Path(e.getenv)
}

func policyCheck(e *env, args []string) error {
	path := policyFile(e, args)
	f, err := policy.Load(path)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%s: ok, %d rules\n", path, len(f.Rules))
	return nil
}

// explanation is what `policy explain` says of a pane's dialog.
type explanation struct {
	Pane     string          `json:"pane"`
	Pack     string          `json:"pack"`
	Rule     string          `json:"rule"`
	Kind     string          `json:"kind"`
	Subject  string          `json:"subject"`
	Inexact  string          `json:"inexact,omitempty"`
	Decision policy.Decision `json:"decision"`
}

func policyExplain(ctx context.Context, e *env, args []string, asJSON bool) error {
	f, err := policy.Load(policyFile(e, nil))
	if err != nil {
		return err
	}
	d, err := e.daemon()
	if err != nil {
		return err
	}
	paneID, err := dialogPane(d, args, "")
	if err != nil {
		return err
	}
	ex, err := explainPane(ctx, e, d, f, paneID)
	if err != nil {
		return err
	}
	if asJSON {
		return json.NewEncoder(e.stdout).Encode(ex)
	}
	fmt.Fprintf(e.stdout, "pane %s (%s pack): %s\n", ex.Pane, ex.Pack, orDash(ex.Rule))
	fmt.Fprintf(e.stdout, "kind %s, subject %q\n", orDash(ex.Kind), ex.Subject)
	if ex.Inexact != "" {
		fmt.Fprintf(e.stdout, "not exact: %s\n", ex.Inexact)
	}
	fmt.Fprintf(e.stdout, "%s: %s\n", ex.Decision.Action, ex.Decision.Why)
	return nil
}

// explainPane reads the pane now with the pack the daemon reads it with, and decides.
func explainPane(ctx context.Context, e *env, d herd.Daemon, f *policy.File, paneID string) (explanation, error) {
	snap, err := d.Snapshot()
	if err != nil {
		return explanation{}, err
	}
	rec, err := herd.Resolve(snap.Panes, paneID)
	if err != nil {
		return explanation{}, err
	}
	pk, err := packs.Load(packs.UserDir(e.getenv)).Get(rec.Pack)
	if err != nil {
		return explanation{}, err
	}
	sc, err := deliver.ScreenNow(ctx, e.server, paneID)
	if err != nil {
		return explanation{}, err
	}
	r := pk.Classify(sc)
	ex := explanation{Pane: paneID, Pack: pk.Name, Rule: r.Rule, Kind: r.Kind, Subject: r.Subject, Inexact: r.Inexact}
	if r.State != state.NeedsConfirmation {
		ex.Decision = policy.Decision{Action: policy.Ask, Why: fmt.Sprintf("the screen shows no dialog (it reads %s)", r.State)}
		return ex, nil
	}
	workers, _ := d.Workers()
	ex.Decision = f.Decide(policy.DialogOf(r), policy.PaneOf(rec, workers))
	return ex, nil
}
