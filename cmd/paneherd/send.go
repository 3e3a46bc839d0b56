package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/paneherd/paneherd/internal/deliver"
	"github.com/paneherd/paneherd/internal/herd"
	"github.com/paneherd/paneherd/internal/outcome"
	"github.com/paneherd/paneherd/internal/wire"
)

var cmdSend = command{
	name:    "send",
	summary: "put a prompt into a worker's pane and submit it, safely",
	usage:   "send TARGET [--file F | TEXT...] [--envelope ID] [--queue] [--force --reason TEXT] [--json]",
	about: `Puts a prompt into a worker's pane and submits it, safely: control characters are removed,
the text is pasted as one bracketed paste from a named buffer, Enter follows separately
after the pack's pause, and the prompt must be acknowledged (the pane goes BUSY or its
input box changes) within the ack timeout, with 2 retries. TARGET is a worker name, a pane
id (%3) or session:window.pane; HOST:TARGET sends on a host of @paneherd-hosts, through
ssh, its text on stdin. The text comes from TEXT, --file F, or stdin (-).

Refused when the pane is in copy or view mode, has input off, is in a synchronized window,
holds a draft a person typed, or is not READY (--queue keeps the prompt until it is).
Defers while a person types in that session (@paneherd-send-quiet), unless --force
--reason. With --client (key bindings) it prints nothing and tells that client instead.`,
	more: outcome.Usage("send"),
	link: "[acting.md](acting.md)",
	flags: func(fs *flag.FlagSet) runFunc {
		var o sendOptions
		fs.StringVar(&o.file, "file", "", "read the prompt from `F` (- for stdin)")
		fs.StringVar(&o.buffer, "buffer", "", "read the prompt from the tmux buffer `NAME` (key bindings)")
		fs.StringVar(&o.envelope, "envelope", "", "send the prompt as [TRIGGER id=`ID`], the prompt, [/TRIGGER] (each on its own line), "+
			"and count ACK_TRIGGER:ID newly on the pane's screen as the acknowledgement too; ID: 1-64 letters, digits or -_.: characters")
		fs.BoolVar(&o.queue, "queue", false, "not READY: deliver when the pane next becomes READY (survives restarts)")
		fs.BoolVar(&o.force, "force", false, "do not wait for a person to stop typing; needs --reason, which is audited")
		fs.StringVar(&o.reason, "reason", "", "why the send was forced, in `TEXT` the audit keeps")
		fs.StringVar(&o.client, "client", "", "also show the outcome on the tmux client `NAME` (key bindings)")
		fs.BoolVar(&o.json, "json", false, `print {"id","outcome","pane_id","name","detail","retries","typed"} `+
			"(typed: the prompt got as far as the pane; audit_error when the action is missing from the audit)")
		return func(ctx context.Context, e *env, args []string) error { return runSend(ctx, e, fs, &o, args) }
	},
}

type sendOptions struct {
	file, buffer, reason, client, envelope string
	queue, force, json                     bool
}

func runSend(ctx context.Context, e *env, fs *flag.FlagSet, o *sendOptions, args []string) error {
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if err := checkEnvelope(fs, o.envelope); err != nil {
		return err
	}
	e.forKeyBinding(o.client)
	if len(rest) == 0 {
		return usagef("send needs a TARGET")
	}
	if o.force && strings.TrimSpace(o.reason) == "" {
		return usagef("--force needs --reason: forcing past a person typing is audited")
	}
	text, err := promptText(ctx, e, *o, rest[1:])
	if err != nil {
		return err
	}
	h, target, err := e.where(ctx, rest[0])
	if err != nil {
		return targetError(ctx, e, o.client, o.json, err)
	}
	if h != nil { // the prompt goes on stdin, never on the command line
		return onHost(ctx, e, h, hostArgs(fs, []string{"file", "buffer", "client"}, []string{"--file=-"}, target), strings.NewReader(text))
	}
	d, err := e.daemon()
	if err != nil {
		return err
	}
	p, err := d.Pane(rest[0])
	if err != nil {
		return targetError(ctx, e, o.client, o.json, err)
	}
	// The envelope id is not the trigger id: see internal/deliver/envelope.go.
	ask := wire.SendAsk{SendRequest: wire.SendRequest{ID: herd.NewTriggerID(), PaneID: p.ID, Text: text, Force: o.force,
		Reason: o.reason, Envelope: o.envelope}, Queue: o.queue}
	res, err := d.Send(ctx, ask)
	if err != nil {
		return err
	}
	return tellAndReport(ctx, e, o.client, o.json, res)
}

// checkEnvelope refuses an envelope id that is not a safe token, given empty too (an
// unset variable in a script), before anything is read or sent: one line, exit 2.
func checkEnvelope(fs *flag.FlagSet, id string) error {
	if !flagGiven(fs, "envelope") {
		return nil
	}
	if err := deliver.CheckEnvelope(id); err != nil {
		return &usageError{msg: fmt.Sprintf("--envelope %q: %v", id, err), short: true}
	}
	return nil
}

// promptText reads the prompt from the words, a file, stdin or a tmux buffer, and
// checks it early: a prompt too long or empty is the caller's mistake, not an outcome.
func promptText(ctx context.Context, e *env, o sendOptions, words []string) (string, error) {
	sources := 0
	for _, set := range []bool{len(words) > 0, o.file != "", o.buffer != ""} {
		if set {
			sources++
		}
	}
	if sources != 1 {
		return "", usagef("give the prompt one way: TEXT, --file F or --buffer NAME")
	}
	var text string
	switch {
	case o.buffer != "":
		out, err := e.server.Run(ctx, nil, "show-buffer", "-b", o.buffer)
		if err != nil {
			return "", fmt.Errorf("read tmux buffer %s: %w", o.buffer, err)
		}
		e.server.Run(ctx, nil, "delete-buffer", "-b", o.buffer)
		text = out
	case o.file == "-" || (len(words) == 1 && words[0] == "-"):
		b, err := readAll(ctx, io.LimitReader(e.stdin, deliver.MaxPayload*4))
		if err != nil {
			return "", fmt.Errorf("read stdin: %w", err)
		}
		text = string(b)
	case o.file != "":
		b, err := os.ReadFile(o.file)
		if err != nil {
			return "", fmt.Errorf("cannot read %s: %w", o.file, unwrapPath(err))
		}
		text = string(b)
	default:
		text = strings.Join(words, " ")
	}
	if _, err := deliver.Sanitize(text); err != nil {
		return "", err
	}
	return text, nil
}

// targetError reports a target that names no pane as TARGET_NOT_FOUND (exit 10), the
// same for every command; any other error (no daemon) is an error (exit 1).
func targetError(ctx context.Context, e *env, client string, asJSON bool, err error) error {
	if !errors.Is(err, wire.ErrNoTarget) {
		return err
	}
	return tellAndReport(ctx, e, client, asJSON, wire.Result{Outcome: outcome.TargetNotFound, Detail: err.Error()})
}

// reportResult prints a result, as a line or JSON, and exits with its outcome's code.
func reportResult(e *env, asJSON bool, r wire.Result) error {
	if asJSON {
		if err := json.NewEncoder(e.stdout).Encode(r); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(e.stdout, "%s %s %s\n", orDash(r.ID), r.Outcome, orDash(r.PaneID))
	}
	if r.AuditError != "" {
		fmt.Fprintf(e.stderr, "paneherd: warning: %s is missing from the audit: %s\n", r.ID, r.AuditError)
	}
	return finish(r.Outcome, r.Detail)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// readAll reads r to its end, or until ctx ends (Ctrl-C while a pipe stays open): a read
// takes no context, so it runs on its own and is left behind when ctx ends; the process
// is about to exit.
func readAll(ctx context.Context, r io.Reader) ([]byte, error) {
	type read struct {
		b   []byte
		err error
	}
	done := make(chan read, 1)
	go func() {
		b, err := io.ReadAll(r)
		done <- read{b, err}
	}()
	select {
	case got := <-done:
		return got.b, got.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
