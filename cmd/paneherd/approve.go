package main

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/paneherd/paneherd/internal/deliver"
	"github.com/paneherd/paneherd/internal/herd"
	"github.com/paneherd/paneherd/internal/outcome"
	"github.com/paneherd/paneherd/packs"
)

var approveUsage = `usage: paneherd approve [TARGET] [--choice yes|always|no] [--client NAME] [--json]
       paneherd deny [TARGET] [--client NAME] [--json]

Answers a confirmation dialog with the keys its pack gives for the choice, only when a
fresh look at the pane shows a dialog the pack knows and offers that choice for; then
checks that the dialog went away. Nothing is pressed on any other screen. With no TARGET:
the current pane if it is waiting, else the pane that has waited longest. Audited.
` + outcome.Usage("approve")

var choices = map[string]string{"yes": packs.ChoiceApprove, "always": packs.ChoiceAlways, "no": packs.ChoiceDeny}

func runApprove(ctx context.Context, e *env, args []string) error {
	return answerCommand(ctx, e, args, "")
}

func runDeny(ctx context.Context, e *env, args []string) error {
	return answerCommand(ctx, e, args, packs.ChoiceDeny)
}

func answerCommand(ctx context.Context, e *env, args []string, fixed string) error {
	fs := flag.NewFlagSet("approve", flag.ContinueOnError)
	choice := fs.String("choice", "yes", "")
	client := fs.String("client", "", "")
	asJSON := fs.Bool("json", false, "")
	rest, err := parseFlags(fs, args, approveUsage)
	if err != nil {
		return err
	}
	e.forKeyBinding(*client)
	if len(rest) > 1 {
		return usagef(approveUsage, "at most one TARGET")
	}
	pick := fixed
	if pick == "" {
		if pick = choices[*choice]; pick == "" {
			return usagef(approveUsage, "--choice is yes, always or no, not %q", *choice)
		}
	}
	d, err := e.daemon()
	if err != nil {
		return err
	}
	paneID, err := dialogPane(ctx, e, d, rest, *client)
	if err != nil {
		return targetError(ctx, e, *client, *asJSON, err)
	}
	res, err := d.Answer(ctx, deliver.AnswerRequest{ID: herd.NewTriggerID(), PaneID: paneID, Choice: pick})
	if err != nil {
		return err
	}
	return tellAndReport(ctx, e, *client, *asJSON, res)
}

// tellAndReport reports a result, and shows it on the client when a key binding ran us.
func tellAndReport(ctx context.Context, e *env, client string, asJSON bool, res deliver.Result) error {
	if client != "" && outcome.OK(res.Outcome) { // a failure is told as the command ends
		msg := string(res.Outcome)
		if res.Detail != "" {
			msg += ": " + res.Detail
		}
		tellClient(ctx, e, client, strings.TrimSpace(orDash(res.Name)+" "+msg))
	}
	return reportResult(e, asJSON, res)
}

// dialogPane picks the pane to answer: TARGET; else the current pane (of the client, or
// of $TMUX_PANE) if it is waiting; else the one that has waited longest.
func dialogPane(ctx context.Context, e *env, d herd.Daemon, rest []string, client string) (string, error) {
	snap, err := d.Snapshot()
	if err != nil {
		return "", err
	}
	if len(rest) == 1 {
		p, err := herd.Resolve(snap.Panes, rest[0])
		return p.ID, err
	}
	current := e.getenv("TMUX_PANE")
	if client != "" {
		out, _ := e.server.Run(ctx, nil, "display-message", "-c", client, "-p", "#{pane_id}")
		current = strings.TrimSpace(out)
	}
	if p := herd.LongestWaiting(snap.Panes, current); p != nil {
		return p.ID, nil
	}
	return "", fmt.Errorf("%w: no pane is waiting for a confirmation", herd.ErrNoTarget)
}
