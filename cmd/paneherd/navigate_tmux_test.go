package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/plugin"
	"github.com/paneherd/paneherd/internal/tmux/tmuxtest"
	"github.com/paneherd/paneherd/internal/wire"
)

// seenMenu is a client of a private tmux server, itself running in a pane of a second one,
// so a test reads off that pane what a person would see.
type seenMenu struct {
	t            *testing.T
	inner, outer *tmuxtest.Handle
	screen       string // the outer pane the client runs in
	client       string // the inner server's name for the client
}

func newSeenMenu(t *testing.T) *seenMenu {
	m := &seenMenu{t: t, inner: tmuxtest.New(t)}
	m.inner.NewSession("inner", "")
	m.outer = tmuxtest.New(t)
	m.screen = m.outer.NewSession("outer", "env -u TMUX tmux -S "+m.inner.Server.Socket+" attach -t inner")
	tmuxtest.WaitFor(t, 15*time.Second, func() bool {
		m.client = m.inner.Run("list-clients", "-F", "#{client_name}")
		return m.client != ""
	})
	// A client is listed before it has told its size; a menu shown to it then is bigger
	// than its terminal, and tmux drops it without a word. Once its status line is drawn,
	// it has.
	tmuxtest.WaitFor(t, 15*time.Second, func() bool {
		return strings.Contains(m.outer.Run("capture-pane", "-p", "-t", m.screen), "[inner]")
	})
	return m
}

// waitFor returns the outer pane's lines once one of them contains want.
func (m *seenMenu) waitFor(want string) []string {
	m.t.Helper()
	var lines []string
	if !tmuxtest.Poll(15*time.Second, func() bool {
		out := m.outer.Run("capture-pane", "-p", "-t", m.screen)
		lines = strings.Split(out, "\n")
		return strings.Contains(out, want)
	}) {
		m.t.Fatalf("no %q on the screen:\n%s", want, strings.Join(lines, "\n"))
	}
	return lines
}

// show runs display-menu, which returns only when the menu closes, and returns a function
// that closes it and waits.
func (m *seenMenu) show(args []string) (closeMenu func()) {
	done := make(chan error, 1)
	go func() {
		_, err := m.inner.Server.Run(context.Background(), nil, args...)
		done <- err
	}()
	return func() {
		m.outer.Run("send-keys", "-t", m.screen, "Escape")
		if err := <-done; err != nil {
			m.t.Errorf("display-menu: %v", err)
		}
	}
}

// The menu shows pane text as it is: a root prompt's '#' with no "#[default]" after it,
// styles and jobs as text, a summary ending in ';' without cutting the command short.
func TestMenuShowsPaneTextOnRealTmux(t *testing.T) {
	m := newSeenMenu(t)
	panes := []wire.Pane{
		{ID: "%1", Name: "root", State: "READY", Summary: "root@box:~#", WindowIndex: 1},
		{ID: "%2", Name: "a##b", State: "ERROR", Summary: "#[fg=red]red #(id)", WindowIndex: 2},
		{ID: "%3", Name: "loop", State: "BUSY", Summary: "for i in 1 2;", WindowIndex: 3},
	}
	closeMenu := m.show(menuArgs(m.client, panes, func(p wire.Pane) string { return switchCommand(m.client, p.ID) }))
	lines := m.waitFor("(3)")
	closeMenu()
	for _, want := range []string{"root READY root@box:~# (1)", "a##b ERROR #[fg=red]red #(id) (2)", "loop BUSY for i in 1 2; (3)"} {
		if !seen(lines, want) {
			t.Errorf("want %q in the menu:\n%s", want, strings.Join(lines, "\n"))
		}
	}
}

// The send menu's prompt names the pane as it is, though tmux expands it twice (building
// the menu, then showing the prompt) before drawing it; what is typed there reaches
// paneherd send for that pane and this client.
func TestMenuSendPromptOnRealTmux(t *testing.T) {
	m := newSeenMenu(t)
	binary, dir := fakePaneherd(t)
	pl := plugin.Plugin{Server: m.inner.Server, Binary: binary}
	// %12: command-prompt replaces "%1" in its template with the answer, in pane ids too.
	panes := []wire.Pane{{ID: "%12", Name: "w##x #[y] #", State: "READY"}}
	closeMenu := m.show(menuArgs(m.client, panes, sendPromptAction(pl)))
	m.waitFor("(1)")
	m.outer.Run("send-keys", "-t", m.screen, "1")
	lines := m.waitFor("send to")
	if last := strings.TrimSpace(lines[len(lines)-1]); last != "send to w##x #[y] #:" {
		t.Errorf("prompt %q, want %q", last, "send to w##x #[y] #:")
	}
	m.outer.Run("send-keys", "-t", m.screen, "hi", "Enter")
	closeMenu()
	if got := ranWith(t, dir); !strings.HasSuffix(got, "--client "+m.client+" %12") {
		t.Errorf("paneherd ran with %q, want --client %s %%12", got, m.client)
	}
	if got := m.inner.Run("show-buffer", "-b", plugin.PromptBuffer); got != "hi" {
		t.Errorf("prompt buffer %q, want %q", got, "hi")
	}
}

// fakePaneherd is a paneherd that writes its arguments, a line each, to dir/args.
func fakePaneherd(t *testing.T) (binary, dir string) {
	dir = t.TempDir()
	binary = filepath.Join(dir, "paneherd")
	script := "#!/bin/sh\nprintf '%s\\n' \"$@\" > " + dir + "/args.tmp && mv " + dir + "/args.tmp " + dir + "/args\n"
	if err := os.WriteFile(binary, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return binary, dir
}

// ranWith is what fakePaneherd ran with, once it ran: its arguments, blanks squeezed.
func ranWith(t *testing.T, dir string) string {
	t.Helper()
	var args []byte
	tmuxtest.WaitFor(t, 15*time.Second, func() bool {
		args, _ = os.ReadFile(filepath.Join(dir, "args"))
		return len(args) > 0
	})
	return strings.Join(strings.Fields(string(args)), " ")
}

// The menu lists a host's panes as HOST/NAME; choosing one runs paneherd switch
// HOST:%ID for this client, the pane's text kept out of the command.
func TestMenuGoesToAHostsPaneOnRealTmux(t *testing.T) {
	m := newSeenMenu(t)
	binary, dir := fakePaneherd(t)
	pl := plugin.Plugin{Server: m.inner.Server, Binary: binary}
	panes := []wire.Pane{{ID: "%5", Host: "devbox", Name: "api;$(touch x)#(id)", State: "NEEDS_CONFIRMATION"}}
	closeMenu := m.show(menuArgs(m.client, panes, goTo(pl, m.client)))
	lines := m.waitFor("(1)")
	if !seen(lines, "devbox/api;$(touch x)#(id) NEEDS_CONFIRMATION") {
		t.Errorf("want the host's pane in the menu:\n%s", strings.Join(lines, "\n"))
	}
	m.outer.Run("send-keys", "-t", m.screen, "1")
	closeMenu()
	if got, want := ranWith(t, dir), "switch --client "+m.client+" -- devbox:%5"; !strings.HasSuffix(got, want) {
		t.Errorf("paneherd ran with %q, want %q", got, want)
	}
}

// seen reports whether a line reads want, blanks squeezed.
func seen(lines []string, want string) bool {
	for _, l := range lines {
		if strings.Contains(strings.Join(strings.Fields(l), " "), want) {
			return true
		}
	}
	return false
}
