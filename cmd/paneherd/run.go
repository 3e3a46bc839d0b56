package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"strings"
	"time"

	"github.com/paneherd/paneherd/internal/herd"
	"github.com/paneherd/paneherd/internal/tmux"
)

// env is everything a command may touch of the outside world, injected so tests need no
// process.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	server         tmux.Server
	// keyClient is the client a key binding ran the command for (forKeyBinding), and
	// keyMessages what the command said for it.
	keyClient   string
	keyMessages bytes.Buffer
}

// forKeyBinding: a key binding ran the command for client (--client NAME). run-shell -b
// shows whatever its command prints in view mode over the person's pane, and a pane in
// view mode refuses sends: so nothing goes to stdout, and what would go to stderr is
// shown on the client's message line when the command ends.
func (e *env) forKeyBinding(client string) {
	if client == "" {
		return
	}
	e.keyClient = client
	e.stdout, e.stderr = io.Discard, &e.keyMessages
}

// tellKeyClient shows the command's last word on the client it ran for, if any.
func (e *env) tellKeyClient() {
	first, _, _ := strings.Cut(e.keyMessages.String(), "\n")
	if e.keyClient == "" || first == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	tellClient(ctx, e, e.keyClient, strings.TrimPrefix(first, "paneherd: "))
}

// daemon is the daemon of the server the command is about, as front ends reach it.
func (e *env) daemon() (herd.Daemon, error) {
	return herd.Of(e.server, e.getenv)
}

// instant commands answer at once and never wait, so they set up no signal handling,
// whose cost every status-bar redraw would pay (docs/performance.md#small-costs).
var instant = map[string]bool{"status": true, "version": true, "bar": true}

func run(ctx context.Context, args []string, e *env) int {
	fs := flag.NewFlagSet("paneherd", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	name := fs.String("L", "", "")
	socket := fs.String("S", "", "")
	showVersion := fs.Bool("version", false, "")
	fs.BoolVar(showVersion, "V", false, "")
	if err := fs.Parse(args); err != nil {
		return exitCode(usageOf(err), usage, e.stdout, e.stderr)
	}
	rest := fs.Args()
	if *showVersion {
		return exitCode(runVersion(ctx, e, nil), usage, e.stdout, e.stderr)
	}
	if len(rest) == 0 {
		return exitCode(usagef("no command given"), usage, e.stdout, e.stderr)
	}
	if rest[0] == "help" {
		return exitCode(flag.ErrHelp, usage, e.stdout, e.stderr)
	}
	cmd, ok := commandNamed(rest[0])
	if !ok {
		return exitCode(usagef("unknown command %q", rest[0]), usage, e.stdout, e.stderr)
	}
	if wantsHelp(rest[1:]) {
		return exitCode(flag.ErrHelp, cmd.help, e.stdout, e.stderr)
	}
	e.server = tmux.ServerFromEnv(*name, *socket, e.getenv)
	if !instant[rest[0]] {
		var stop context.CancelFunc
		ctx, stop = withSignals(ctx)
		defer stop()
	}
	if asked[rest[0]] {
		ctx = endsWithReader(ctx, e.stdout)
	}
	_, runCommand := cmd.flagSet()
	code := exitCode(runCommand(ctx, e, rest[1:]), cmd.help, e.stdout, e.stderr)
	e.tellKeyClient()
	return code
}

// parseFlags parses flags that may come before or after the positional arguments
// (`classify FILE --json` as well as `classify --json FILE`); "--" ends the flags.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	fs.SetOutput(io.Discard)
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, usageOf(err)
		}
		args = fs.Args()
		if len(args) == 0 {
			return positional, nil
		}
		if args[0] == "--" {
			return append(positional, args[1:]...), nil
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
}

// parseNoArgs parses a command's flags and refuses any other argument.
func parseNoArgs(fs *flag.FlagSet, args []string) error {
	rest, err := parseFlags(fs, args)
	if err == nil && len(rest) > 0 {
		err = usagef("unexpected argument %q", rest[0])
	}
	return err
}

// usageOf is a flag parser's error as paneherd reports it: -h is a request for the usage,
// anything else a command line it cannot read.
func usageOf(err error) error {
	if errors.Is(err, flag.ErrHelp) {
		return err
	}
	return usagef("%v", err)
}

// flagGiven reports whether the command line set the flag name, even to "" (an unset
// variable in a script), which its value alone cannot tell.
func flagGiven(fs *flag.FlagSet, name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}
