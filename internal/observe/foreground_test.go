package observe

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/tmux"
	"github.com/paneherd/paneherd/internal/tmux/tmuxtest"
)

// quietStart is typed at a bash prompt. The shell echoes Enter's newline, then waits a
// moment itself (the builtin read: the shell still in front, nothing printed), then
// starts a subshell that waits a moment more before it becomes sleep: a group other than
// the shell's in front, led by a process named as the shell, then by sleep. The races of
// a command's start, made wide: Enter's echo before the shell forks the command, and the
// fork before its exec. Nothing prints after the echo.
const quietStart = "read -t 0.3; (sleep 0.3; exec sleep 30)"

// bashPane starts a session running an interactive bash without rc files and waits for
// its prompt.
func bashPane(t *testing.T, h *tmuxtest.Handle) string {
	t.Helper()
	pane := h.NewSession("q", "exec bash --norc --noprofile")
	tmuxtest.WaitFor(t, 15*time.Second, func() bool {
		prompt := strings.TrimSpace(h.Run("capture-pane", "-p", "-t", pane))
		return strings.HasSuffix(prompt, "$") || strings.HasSuffix(prompt, "#") // # as root
	})
	return pane
}

// runsInFront reports whether a frame shows sleep in front of the pane's shell.
func runsInFront(f Frame, pane string) bool {
	fg, read := f.Foreground[pane]
	return read && fg.Moved() && paneOf(f, pane).Command == "sleep"
}

func paneOf(f Frame, id string) tmux.Pane {
	for _, p := range f.Panes {
		if p.ID == id {
			return p
		}
	}
	return tmux.Pane{}
}

// The control observer sees a quiet command start from its foreground, though nothing
// prints after Enter's echo and tmux is not listed again until the reconcile; and sees it
// end. At the pane's own shell, and at a shell started from it.
func TestControlModeSeesAQuietCommandStart(t *testing.T) {
	h := tmuxtest.New(t)
	pane := bashPane(t, h)
	start := time.Now()
	o := startControl(t, h)
	// As the daemon sets it: a shell in front (the pane's own, or one started from it) is
	// watched on the clock.
	o.Shell = func(name string) bool { return name == "bash" }
	nextWithin(t, o, 15*time.Second, func(Frame) bool { return time.Since(start) > settleAttach })
	atPrompt := func(nested bool) func(Frame) bool {
		return func(f Frame) bool {
			fg, read := f.Foreground[pane]
			return read && fg.Moved() == nested && paneOf(f, pane).Command == "bash"
		}
	}
	for _, nested := range []bool{false, true} {
		if nested {
			h.Run("send-keys", "-t", pane, "-l", "bash --norc --noprofile")
			h.Run("send-keys", "-t", pane, "Enter")
			nextWithin(t, o, 5*time.Second, atPrompt(true))
		}
		// From a full look on: the next is a reconcile away.
		var reconcileAt time.Time
		nextWithin(t, o, 15*time.Second, func(Frame) bool {
			reconcileAt = o.lastFull.Add(reconcile)
			return time.Until(reconcileAt) > 3*time.Second
		})
		h.Run("send-keys", "-t", pane, "-l", quietStart)
		h.Run("send-keys", "-t", pane, "Enter")
		// nextWithin fails at the deadline: a frame from the reconcile is too late.
		f := nextWithin(t, o, time.Until(reconcileAt), func(f Frame) bool { return runsInFront(f, pane) })
		if !strings.Contains(f.Screens[pane], quietStart) {
			t.Errorf("nested %v: the frame did not capture the pane: %q", nested, f.Screens[pane])
		}
		h.Run("send-keys", "-t", pane, "C-c")
		nextWithin(t, o, 5*time.Second, atPrompt(nested))
	}
}

// The polling observer, with a tick far off, looks as soon as a pane's foreground
// changes: a quiet command starting, and ending.
func TestPollerLooksWhenAForegroundChanges(t *testing.T) {
	h := tmuxtest.New(t)
	pane := bashPane(t, h)
	p := NewPoller(h.Server, time.Hour)
	t.Cleanup(p.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	f, err := p.Next(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if fg, ok := f.Foreground[pane]; !ok || fg.Moved() || paneOf(f, pane).Command != "bash" {
		t.Fatalf("the shell at its prompt: read %v as %+v, command %q", ok, fg, paneOf(f, pane).Command)
	}
	h.Run("send-keys", "-t", pane, "-l", quietStart)
	h.Run("send-keys", "-t", pane, "Enter")
	for !runsInFront(f, pane) {
		if f, err = p.Next(ctx, nil); err != nil {
			t.Fatalf("no look while sleep ran: %v", err)
		}
	}
	h.Run("send-keys", "-t", pane, "C-c")
	for runsInFront(f, pane) {
		if f, err = p.Next(ctx, nil); err != nil {
			t.Fatalf("no look after sleep ended: %v", err)
		}
	}
	if fg := f.Foreground[pane]; fg.Moved() || paneOf(f, pane).Command != "bash" {
		t.Errorf("after the command: %+v, command %q", fg, paneOf(f, pane).Command)
	}
}

// What /proc names in front is what tmux names: a pane's Command does not flip between
// the two sources from one frame to the next.
func TestForegroundNamesAsTmuxDoes(t *testing.T) {
	h := tmuxtest.New(t)
	pane := bashPane(t, h)
	var fs foregrounds
	defer fs.close()
	for _, c := range []struct {
		typed string
		moved bool
		// inPlace: the pane's own shell execs itself under another name, and its comm
		// stays bash: between tmux's lists /proc sees nothing change (a full look names
		// it again, rename), so the first read waits for tmux to list the new name.
		inPlace bool
	}{
		// A login shell: "-mylogin"; the builtin read holds the exec back, as a loaded
		// machine may, past the first look.
		{"read -t 0.3; exec -a -mylogin bash --norc --noprofile", false, true},
		{"/bin/sleep 30", true, false},
		{"sh -c 'sleep 30; :'", true, false},
		{"exec -a '/opt/my app/x' sleep 30", false, false}, // the pane's own process, renamed
	} {
		h.Run("send-keys", "-t", pane, "-l", c.typed)
		h.Run("send-keys", "-t", pane, "Enter")
		var listed tmux.Pane
		var pf *paneFront
		if !tmuxtest.Poll(30*time.Second, func() bool {
			panes, err := h.Server.ListPanes(context.Background())
			if err != nil || len(panes) != 1 {
				return false
			}
			listed = panes[0]
			if c.inPlace && listed.Command == "bash" {
				return false
			}
			pf, _ = fs.read(listed, false)
			return pf != nil && pf.last.Moved() == c.moved && pf.name == listed.Command && listed.Command != "bash"
		}) {
			t.Fatalf("%s: /proc reads %+v, tmux lists %q", c.typed, pf, listed.Command)
		}
		if c.moved {
			// Until the shell is back in front: a line typed while the command still runs
			// is the command's (under load a C-c may land before the command's group takes
			// the terminal, and be the shell's): press it again until the shell is in front.
			if !tmuxtest.Poll(30*time.Second, func() bool {
				h.Run("send-keys", "-t", pane, "C-c")
				panes, err := h.Server.ListPanes(context.Background())
				if err != nil || len(panes) != 1 {
					return false
				}
				pf, _ := fs.read(panes[0], false)
				return pf != nil && !pf.last.Moved()
			}) {
				t.Fatalf("%s: the shell never came back in front", c.typed)
			}
		}
	}
}

// Only a pane with a shell in front (or not read yet) is read on the clock after it
// prints: an agent's CLI or a command in front starts no quiet command.
func TestShellInFront(t *testing.T) {
	o := &ControlMode{fronts: foregrounds{panes: map[string]*paneFront{
		"%agent": {name: "claude"}, "%login": {name: "-bash"}, "%zsh": {name: "zsh"}, "%unread": {name: ""},
	}}}
	if !o.shellInFront("%agent") {
		t.Errorf("with no Shell to tell, every pane is read on the clock")
	}
	o.Shell = func(name string) bool { return name == "bash" || name == "zsh" }
	for pane, want := range map[string]bool{"%agent": false, "%login": true, "%zsh": true, "%unread": true, "%new": true} {
		if got := o.shellInFront(pane); got != want {
			t.Errorf("shellInFront(%s) = %v, want %v", pane, got, want)
		}
	}
}
