package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/paneherd/paneherd/internal/doctor"
)

var cmdDoctor = command{
	name:    "doctor",
	summary: "check tmux, the daemon, the plugin, notifications, packs and agent hooks; say what to fix",
	usage:   "doctor [--json]",
	about: `Checks what paneherd needs on this tmux server and says, one line each, ok, warn or fail,
what it found, and for warn and fail what to do:
  tmux          its version (3.2 or newer) and whether the server runs
  daemon        running or not (and why not), its version (another than this one's:
                restart it), since when, control mode or polling
  log           where the daemon's log is
  database      its file's size and schema version (asked of the daemon)
  host:NAME     each host of @paneherd-hosts as the daemon follows it: up, or why not
                (unreachable and why, its paneherd too old or too new) and what to do
  options       any @paneherd- option whose value is not valid
  status-bar    status-left/right show the badges (the plugin was applied)
  tmux-hooks    the plugin's tmux hooks are installed
  notify        how a notification reaches you: the desktop bus, or why none and the
                tmux messages instead (@paneherd-notify-backend)
  packs         how many loaded, and each of your packs that does not (file:line)
  AGENT-hooks   paneherd's hooks in Claude Code, Codex and Gemini CLI`,
	more: `Only looks: starts no daemon, changes nothing; every tmux call and question to the daemon
has a deadline. Exit 0 when no check failed (warnings allowed), 1 when one did.`,
	link: "[README](../README.md#paneherd-doctor)",
	flags: func(fs *flag.FlagSet) runFunc {
		var o doctorOptions
		fs.BoolVar(&o.json, "json", false, `{"ok":true,"checks":[{"status":"ok","name":"tmux","found":"…","fix":"…"},…]}`)
		return func(ctx context.Context, e *env, args []string) error { return runDoctor(ctx, e, fs, &o, args) }
	},
}

type doctorOptions struct {
	json bool
}

func runDoctor(ctx context.Context, e *env, fs *flag.FlagSet, o *doctorOptions, args []string) error {
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("doctor takes no arguments")
	}
	binary, err := selfPath()
	if err != nil {
		return err
	}
	report := doctor.Doctor{Server: e.server, Getenv: e.getenv, Binary: binary, Version: selfVersion(), UID: os.Getuid()}.Run(ctx)
	if ctx.Err() != nil {
		return ctx.Err() // interrupted: the checks cut short say nothing true
	}
	if err := writeReport(e, report, o.json); err != nil {
		return err
	}
	if n := report.Failed(); n > 0 {
		return fmt.Errorf("doctor: %d of %d checks failed", n, len(report.Checks))
	}
	return nil
}

func writeReport(e *env, report doctor.Report, asJSON bool) error {
	if !asJSON {
		return report.WriteText(e.stdout)
	}
	enc := json.NewEncoder(e.stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(report)
}
