package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// The peer paneherd is compared with: luqmaan/tmux-ai-status, a 2 s poller that runs a tmux
// client per pane (list-panes, capture-pane, rename-window) and walks /proc. It is built
// from its public source into a temp directory for the run; its code is never kept here.
const peerName = "tmux-ai-status"

// buildPeer clones src (a git URL or a local checkout of tmux-ai-status) into a temp
// directory and builds it; it returns the binary and a function removing it all.
func buildPeer(ctx context.Context, src string) (string, func(), error) {
	dir, err := os.MkdirTemp("", "phb-peer")
	if err != nil {
		return "", nil, err
	}
	cleanup := func() { os.RemoveAll(dir) }
	repo := filepath.Join(dir, "src")
	if out, err := exec.CommandContext(ctx, "git", "clone", "-q", "--depth", "1", src, repo).CombinedOutput(); err != nil {
		cleanup()
		return "", nil, fmt.Errorf("clone %s: %v: %s", src, err, strings.TrimSpace(string(out)))
	}
	bin := filepath.Join(dir, peerName)
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, ".")
	build.Dir = repo
	if out, err := build.CombinedOutput(); err != nil {
		cleanup()
		return "", nil, fmt.Errorf("build %s: %v: %s", peerName, err, strings.TrimSpace(string(out)))
	}
	return bin, cleanup, nil
}

// peerCommand runs the peer against the world's server: it calls plain `tmux`, which
// follows $TMUX (socket,pid,session) to the server, as it does inside tmux.
func (w *world) peerCommand(ctx context.Context, bin string) *exec.Cmd {
	c := exec.CommandContext(ctx, bin)
	c.Env = append(append([]string(nil), w.env...), fmt.Sprintf("TMUX=%s,%d,0", w.server.Socket, w.serverPID(ctx)))
	return c
}
