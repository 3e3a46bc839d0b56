package main

import (
	"bytes"
	"context"
	"flag"
	"io"
	"slices"
	"strings"

	"github.com/paneherd/paneherd/internal/herd"
)

// Acting across hosts (docs/fleet.md#acting-across-hosts): a command given HOST:TARGET,
// HOST a label of @paneherd-hosts, runs the same command on that host through ssh
// (herd.Host.Run), with the target as the host names it. Its stdout and stderr are
// passed on, its exit code is this command's (exit.go); the host's paneherd does the
// work, with its own checks, outcomes and audit.

// where reads target as HOST:TARGET (herd.Daemon.Where): the host it is on, nil for this
// server, and the target as that host's paneherd names it.
func (e *env) where(ctx context.Context, target string) (*herd.Host, string, error) {
	d, err := e.daemon()
	if err != nil {
		return nil, "", err
	}
	return d.Where(ctx, target)
}

// onHost runs paneherd with args on h, stdin (nil: none) its stdin. For a key binding
// (--client), whose stdout goes nowhere, a success is shown on the client as the host's
// paneherd worded it; a failure, as any command's, when the command ends.
func onHost(ctx context.Context, e *env, h *herd.Host, args []string, stdin io.Reader) error {
	stdout := e.stdout
	var said bytes.Buffer
	if e.keyClient != "" {
		stdout = &said
	}
	err := h.Run(ctx, args, stdin, stdout, e.stderr)
	if err == nil && e.keyClient != "" {
		first, _, _ := strings.Cut(said.String(), "\n")
		tellClient(ctx, e, e.keyClient, h.Label+": "+first)
	}
	return err
}

// hostArgs is the command line of fs's command for a host: its name, each flag the
// command line set but those in here (which this side has handled: a local file, a tmux
// buffer or client), then extra, then "--" and the words, so none is read as a flag.
func hostArgs(fs *flag.FlagSet, here []string, extra []string, words ...string) []string {
	args := []string{fs.Name()}
	fs.Visit(func(f *flag.Flag) {
		if !slices.Contains(here, f.Name) {
			args = append(args, "--"+f.Name+"="+f.Value.String())
		}
	})
	args = append(append(args, extra...), "--")
	return append(args, words...)
}
