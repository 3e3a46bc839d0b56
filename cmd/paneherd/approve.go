package main

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/paneherd/paneherd/internal/herd"
	"github.com/paneherd/paneherd/internal/outcome"
	"github.com/paneherd/paneherd/internal/wire"
	"github.com/paneherd/paneherd/packs"
)

const answerAbout = `Answers a confirmation dialog with the keys its pack gives for the choice, only when a
fresh look at the pane shows a dialog the pack knows and offers that choice for; then
checks that the dialog went away. Nothing is pressed on any other screen. With no TARGET:
the current pane if it is waiting, else the pane that has waited longest; in a window
onto a host's pane (switch HOST:TARGET), that pane. Audited. HOST:TARGET answers on a
host of @paneherd-hosts, through ssh.`

var cmdApprove = command{
	name:    "approve",
	summary: "answer a worker's confirmation dialog (--choice yes|always|no)",
	usage:   "approve [TARGET] [--choice yes|always|no] [--client NAME] [--json]",
	about:   answerAbout,
	more:    outcome.Usage("approve"),
	link:    "[acting.md](acting.md)",
	flags: func(fs *flag.FlagSet) runFunc {
		o := answerFlags(fs)
		fs.StringVar(&o.choice, "choice", "yes", "the dialog's `CHOICE` to press: yes, always or no (default yes)")
		return func(ctx context.Context, e *env, args []string) error { return runAnswer(ctx, e, fs, o, args) }
	},
}

var cmdDeny = command{
	name:    "deny",
	summary: "deny a worker's confirmation dialog",
	usage:   "deny [TARGET] [--client NAME] [--json]",
	about:   answerAbout,
	more:    outcome.Usage("deny"),
	link:    "[acting.md](acting.md)",
	flags: func(fs *flag.FlagSet) runFunc {
		o := answerFlags(fs)
		o.choice = "no"
		return func(ctx context.Context, e *env, args []string) error { return runAnswer(ctx, e, fs, o, args) }
	},
}

var choices = map[string]string{"yes": packs.ChoiceApprove, "always": packs.ChoiceAlways, "no": packs.ChoiceDeny}

type answerOptions struct {
	choice, client string
	json           bool
}

// answerFlags defines the flags approve and deny share.
func answerFlags(fs *flag.FlagSet) *answerOptions {
	var o answerOptions
	fs.StringVar(&o.client, "client", "", "also show the outcome on the tmux client `NAME` (key bindings)")
	fs.BoolVar(&o.json, "json", false, `print {"id","outcome","pane_id","name","detail","retries"}`)
	return &o
}

func runAnswer(ctx context.Context, e *env, fs *flag.FlagSet, o *answerOptions, args []string) error {
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	e.forKeyBinding(o.client)
	if len(rest) > 1 {
		return usagef("at most one TARGET")
	}
	pick := choices[o.choice]
	if pick == "" {
		return usagef("--choice is yes, always or no, not %q", o.choice)
	}
	var current string
	if len(rest) == 0 {
		var shown string
		if current, shown = currentPane(ctx, e, o.client); shown != "" {
			rest = []string{shown} // a window onto a host's pane: that pane
		}
	}
	if len(rest) == 1 {
		h, target, err := e.where(ctx, rest[0])
		if err != nil {
			return targetError(ctx, e, o.client, o.json, err)
		}
		if h != nil {
			return onHost(ctx, e, h, hostArgs(fs, []string{"client"}, nil, target), nil)
		}
	}
	d, err := e.daemon()
	if err != nil {
		return err
	}
	paneID, err := dialogPane(d, rest, current)
	if err != nil {
		return targetError(ctx, e, o.client, o.json, err)
	}
	res, err := d.Answer(ctx, wire.AnswerRequest{ID: herd.NewTriggerID(), PaneID: paneID, Choice: pick})
	if err != nil {
		return err
	}
	return tellAndReport(ctx, e, o.client, o.json, res)
}

// tellAndReport reports a result, and shows it on the client when a key binding ran us.
func tellAndReport(ctx context.Context, e *env, client string, asJSON bool, res wire.Result) error {
	if client != "" && outcome.OK(res.Outcome) { // a failure is told as the command ends
		msg := string(res.Outcome)
		if res.Detail != "" {
			msg += ": " + res.Detail
		}
		tellClient(ctx, e, client, strings.TrimSpace(orDash(res.Name)+" "+msg))
	}
	return reportResult(e, asJSON, res)
}

// dialogPane picks the pane to answer: TARGET; else the current pane if it is waiting;
// else the one that has waited longest.
func dialogPane(d herd.Daemon, rest []string, current string) (string, error) {
	snap, err := d.Snapshot()
	if err != nil {
		return "", err
	}
	if len(rest) == 1 {
		p, err := herd.Resolve(snap.Panes, rest[0])
		return p.ID, err
	}
	if p := herd.LongestWaiting(snap.Panes, current); p != nil {
		return p.ID, nil
	}
	return "", fmt.Errorf("%w: no pane is waiting for a confirmation", wire.ErrNoTarget)
}

// currentPane is the pane the person is at (the client's, else $TMUX_PANE's: a key
// binding's), and the host's pane it shows when it is a window onto one (remoteMark).
func currentPane(ctx context.Context, e *env, client string) (id, shown string) {
	show := []string{"display-message", "-p", "#{pane_id}\x1f#{" + remoteMark + "}"}
	switch pane := e.getenv("TMUX_PANE"); {
	case client != "":
		show = clientArgs(client, show...)
	case pane != "":
		show = []string{"display-message", "-t", pane, "-p", show[2]}
	default:
		return "", ""
	}
	out, _ := e.server.Run(ctx, nil, show...)
	id, shown, _ = strings.Cut(strings.TrimSpace(out), "\x1f")
	return id, shown
}
