package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"sort"
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

type command struct {
	run     func(ctx context.Context, e *env, args []string) error
	summary string
	usage   string // printed for `paneherd COMMAND -h`, whatever else the command parses
}

// instant commands answer at once and never wait, so they set up no signal handling,
// whose cost every status-bar redraw would pay (docs/performance.md#small-costs).
var instant = map[string]bool{"status": true, "version": true, "bar": true}

var commands = map[string]command{
	"watch":       {runWatch, "run the daemon: classify every pane of the tmux server until it exits", watchUsage},
	"status":      {runStatus, "show every pane's state (--short: one status-bar line, --json)", statusUsage},
	"classify":    {runClassify, "classify one captured screen (a file or -) and say which rule decided", classifyUsage},
	"packs":       {runPacks, "list, show or check packs (per-CLI knowledge)", packsUsage},
	"version":     {runVersion, "print the version", versionUsage},
	"start":       {runStart, "start the daemon in the background unless one runs", startUsage},
	"stop":        {runStop, "stop the daemon", stopUsage},
	"restart":     {runRestart, "stop the daemon, then start it", restartUsage},
	"hook":        {runHook, "(run by tmux hooks and agent hooks) tell the daemon something changed", hookUsage},
	"hooks":       {runHooks, "install, remove or check paneherd's hooks in Claude Code, Codex and Gemini CLI", hooksUsage},
	"bar":         {runBar, "(run by the status bar) revive a daemon that crashed; say whether one runs", barUsage},
	"plugin":      {runPlugin, "(run by paneherd.tmux) apply the plugin: status bar, hooks, keys, daemon", pluginUsage},
	"menu":        {runMenu, "show a tmux menu of workers; choosing one jumps to it", menuUsage},
	"jump":        {runJump, "jump to the next pane needing attention", jumpUsage},
	"send":        {runSend, "put a prompt into a worker's pane and submit it, safely", sendUsage},
	"approve":     {runApprove, "answer a worker's confirmation dialog (--choice yes|always|no)", approveUsage},
	"deny":        {runDeny, "deny a worker's confirmation dialog", approveUsage},
	"wait":        {runWait, "block until a worker is done; say how it ended", waitUsage},
	"create":      {runCreate, "start a managed worker in a directory (or a git worktree) and keep it alive", createUsage},
	"workers":     {runWorkers, "list the managed workers (--json); workers continue NAME: start a failed one again", workersUsage},
	"retire":      {runRetire, "stop a managed worker for good: interrupt, then close its pane; its history stays", retireUsage},
	"switch":      {runSwitch, "take the current tmux client to a worker", switchUsage},
	"follow":      {runFollow, "stream this server's panes as JSON lines: a snapshot, then each change (read by another machine's daemon over ssh)", followUsage},
	"mcp":         {runMCP, "serve the Model Context Protocol on stdio: an orchestrating agent sees and drives the workers", mcpUsage},
	"record":      {runRecord, "save a pane's screen each time it changes, with the state paneherd read", recordUsage},
	"history":     {runHistory, "a pane's state transitions and notifications (from the daemon)", historyUsage},
	"metrics":     {runMetrics, "the daemon's metrics in the Prometheus text format (counts of actions, notifications, panes per state)", metricsUsage},
	"notify":      {runNotify, "notify test: send a test notification through every backend and say what each did", notifyUsage},
	"demo":        {runDemo, "see paneherd at work on a private tmux server (--headless: print, no attach)", demoUsage},
	"doctor":      {runDoctor, "check tmux, the daemon, the plugin, notifications, packs and agent hooks; say what to fix", doctorUsage},
	"demo-worker": {runDemoWorker, "", ""},
}

const globalUsage = `usage: paneherd [-L NAME | -S PATH] COMMAND [ARGS]

  -L NAME   use the tmux server with socket name NAME (as tmux -L)
  -S PATH   use the tmux server at socket PATH (as tmux -S)
            default: the server of $TMUX, else tmux's default server
  --version print the version (also -V, or the command version)

commands:
`

func usage() string {
	var b strings.Builder
	b.WriteString(globalUsage)
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if commands[n].summary == "" {
			continue // internal: run by paneherd itself
		}
		b.WriteString("  " + n + strings.Repeat(" ", 12-len(n)) + commands[n].summary + "\n")
	}
	b.WriteString("\nRun 'paneherd COMMAND -h' for a command's flags.\n")
	return b.String()
}

func run(ctx context.Context, args []string, e *env) int {
	fs := flag.NewFlagSet("paneherd", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	name := fs.String("L", "", "")
	socket := fs.String("S", "", "")
	showVersion := fs.Bool("version", false, "")
	fs.BoolVar(showVersion, "V", false, "")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			io.WriteString(e.stdout, usage())
			return exitOK
		}
		return exitCode(usagef(usage(), "%v", err), e.stdout, e.stderr)
	}
	rest := fs.Args()
	if *showVersion {
		return exitCode(runVersion(ctx, e, nil), e.stdout, e.stderr)
	}
	if len(rest) == 0 {
		return exitCode(usagef(usage(), "no command given"), e.stdout, e.stderr)
	}
	if rest[0] == "help" {
		io.WriteString(e.stdout, usage())
		return exitOK
	}
	cmd, ok := commands[rest[0]]
	if !ok {
		return exitCode(usagef(usage(), "unknown command %q", rest[0]), e.stdout, e.stderr)
	}
	if wantsHelp(rest[1:]) && cmd.usage != "" {
		io.WriteString(e.stdout, cmd.usage)
		return exitOK
	}
	e.server = tmux.ServerFromEnv(*name, *socket, e.getenv)
	if !instant[rest[0]] {
		var stop context.CancelFunc
		ctx, stop = withSignals(ctx)
		defer stop()
	}
	code := exitCode(cmd.run(ctx, e, rest[1:]), e.stdout, e.stderr)
	e.tellKeyClient()
	return code
}

// parseFlags parses flags that may come before or after the positional arguments
// (`classify FILE --json` as well as `classify --json FILE`); "--" ends the flags.
func parseFlags(fs *flag.FlagSet, args []string, usage string) ([]string, error) {
	fs.SetOutput(io.Discard)
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, &helpRequested{usage: usage}
			}
			return nil, usagef(usage, "%v", err)
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

// flagGiven reports whether the command line set the flag name, even to "" (an unset
// variable in a script), which its value alone cannot tell.
func flagGiven(fs *flag.FlagSet, name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}
