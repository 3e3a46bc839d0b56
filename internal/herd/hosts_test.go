package herd

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paneherd/paneherd/internal/paths"
	"github.com/paneherd/paneherd/internal/remote"
	"github.com/paneherd/paneherd/internal/wire"
)

func TestSplitTarget(t *testing.T) {
	hosts, err := remote.ParseHosts("devbox me@gpu1.lab:2222")
	if err != nil {
		t.Fatal(err)
	}
	here := &wire.Snapshot{Panes: []wire.Pane{
		{ID: "%1", Session: "work", Name: "api"},
		{ID: "%2", Session: "gpu1.lab", Name: "train"},
		{ID: "%3", Session: "work", Name: "ssh:prod"},
		{ID: "%4", Session: "notes", Name: "devbox:api"},
	}}
	for name, c := range map[string]struct {
		target string
		here   *wire.Snapshot
		host   string // "": this server's
		rest   string
		err    string // part of the error; "": none
	}{
		"a name":                       {target: "api", here: here, rest: "api"},
		"a pane id":                    {target: "%3", here: here, rest: "%3"},
		"session:window.pane here":     {target: "work:1.0", here: here, rest: "work:1.0"},
		"a name with a colon here":     {target: "ssh:prod", here: here, rest: "ssh:prod"},
		"a host's name":                {target: "devbox:build", here: here, host: "devbox", rest: "build"},
		"a host's pane id":             {target: "devbox:%5", here: here, host: "devbox", rest: "%5"},
		"a host's session:window.pane": {target: "devbox:main:1.2", here: here, host: "devbox", rest: "main:1.2"},
		"a label, case aside":          {target: "DevBox:api", here: nil, host: "devbox", rest: "api"},
		"a host with user and port":    {target: "gpu1.lab:%0", here: nil, host: "gpu1.lab", rest: "%0"},
		"hostile words stay whole":     {target: "devbox:a;$(touch x)`y`'\"\\\n", here: here, host: "devbox", rest: "a;$(touch x)`y`'\"\\\n"},
		"no daemon here: the host":     {target: "gpu1.lab:train", here: nil, host: "gpu1.lab", rest: "train"},
		"no daemon here: not a host":   {target: "work:1.0", here: nil, rest: "work:1.0"},
		"a host and a session here":    {target: "gpu1.lab:train", here: here, err: "gpu1.lab is a host of @paneherd-hosts and this server's too"},
		"a host and a name here":       {target: "devbox:api", here: here, err: "name this server's pane by its id (%3), or rename the session"},
		"a host and nothing after":     {target: "devbox:", here: here, err: "give the pane on devbox after the colon"},
		"neither host nor session":     {target: "devbx:api", here: here, err: "devbx is not a host of @paneherd-hosts, nor a session here: to act on that machine, add it: tmux set -g @paneherd-hosts 'devbox me@gpu1.lab:2222 devbx'"},
		"no hosts at all":              {target: "devbox:api", here: &wire.Snapshot{}, err: "add it: tmux set -g @paneherd-hosts devbox"},
	} {
		t.Run(name, func(t *testing.T) {
			list := hosts
			if name == "no hosts at all" {
				list = nil
			}
			h, rest, err := SplitTarget(c.target, list, c.here)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) || !errors.Is(err, wire.ErrNoTarget) {
					t.Fatalf("SplitTarget(%q) = %v, %q, %v; want an ErrNoTarget saying %q", c.target, h, rest, err, c.err)
				}
				return
			}
			host := ""
			if h != nil {
				host = h.Label
			}
			if err != nil || host != c.host || rest != c.rest {
				t.Errorf("SplitTarget(%q) = %q, %q, %v; want %q, %q", c.target, host, rest, err, c.host, c.rest)
			}
		})
	}
}

// TestAHostsControlSocketIsOnlyInATrustedDirectory: a command on a host rides on the
// control socket in the daemon's runtime directory; one another user could write could
// hold her socket, taking the prompt: refused.
func TestAHostsControlSocketIsOnlyInATrustedDirectory(t *testing.T) {
	runtime := filepath.Join(t.TempDir(), "run")
	if err := os.Mkdir(runtime, 0o700); err != nil {
		t.Fatal(err)
	}
	d := Daemon{Dir: paths.Dir{Runtime: runtime}}
	devbox := remote.Host{Label: "devbox", Dest: "devbox"}
	if _, err := d.hostOf(devbox, ""); err != nil {
		t.Fatalf("a private runtime directory: %v", err)
	}
	if err := os.Chmod(runtime, 0o777); err != nil {
		t.Fatal(err)
	}
	if h, err := d.hostOf(devbox, ""); err == nil {
		t.Errorf("a runtime directory anyone may write: got a host (%+v), want a refusal", h)
	}
}
