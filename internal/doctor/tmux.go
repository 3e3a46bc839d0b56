package doctor

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"

	"github.com/paneherd/paneherd/internal/tmux"
)

// The oldest tmux paneherd runs on; install.sh checks the same.
const (
	minMajor, minMinor = 3, 2
	minVersion         = "3.2"
)

// checkTmux asks the tmux binary for its version, and the server whether it runs and
// which version it is (a server started before an upgrade runs the old one). running
// says whether the server answered.
func (d Doctor) checkTmux(ctx context.Context) (c Check, running bool) {
	out, err := d.Server.Run(ctx, nil, "-V")
	if err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return fail("tmux", "not installed (no tmux on PATH)", "install tmux "+minVersion+" or newer"), false
		}
		return fail("tmux", "tmux -V failed: "+err.Error(), "check the tmux installation"), false
	}
	client := strings.TrimPrefix(strings.TrimSpace(out), "tmux ")
	server, err := d.Server.Run(ctx, nil, "display-message", "-p", "#{version}")
	return versionCheck(client, strings.TrimSpace(server), err, d.Server.SocketPath())
}

// versionCheck judges the client's and the server's versions and the server's answer.
func versionCheck(client, server string, serverErr error, socket string) (Check, bool) {
	where := "(socket " + socket + ")"
	switch {
	case errors.Is(serverErr, tmux.ErrNoServer):
		return fail("tmux", client+", no server running "+where,
			"start tmux, or name the server with -L NAME or -S PATH (without them: $TMUX's, else the default)"), false
	case errors.Is(serverErr, context.DeadlineExceeded):
		return fail("tmux", fmt.Sprintf("%s, the server %s did not answer within %s", client, where, limit),
			"tmux seems hung: try 'tmux -S "+socket+" list-sessions', else restart tmux"), false
	case errors.Is(serverErr, tmux.ErrNoSessions):
		server = client // it runs, with no session to answer for (3.3a answers all the same)
	case serverErr != nil:
		return fail("tmux", client+", the server "+where+" cannot be asked: "+serverErr.Error(),
			"make sure this tmux binary is the one that started the server"), false
	}
	found := server + ", server running " + where
	if server != client {
		found = "client " + client + ", server " + server + ", running " + where
	}
	for _, v := range []string{client, server} {
		major, minor, err := tmux.ParseVersion(v)
		switch {
		case err != nil:
			return warn("tmux", found, "cannot tell whether tmux "+v+" is "+minVersion+" or newer, which paneherd needs"), true
		case major < minMajor || major == minMajor && minor < minMinor:
			return fail("tmux", found, "paneherd needs tmux "+minVersion+" or newer: upgrade tmux, then restart its server"), true
		}
	}
	if server != client {
		return warn("tmux", found, "the server still runs the tmux it started with: restart it to run "+client), true
	}
	return ok("tmux", found), true
}
