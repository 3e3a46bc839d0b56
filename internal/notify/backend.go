package notify

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/gen2brain/beeep"

	"github.com/paneherd/paneherd/internal/tmux"
	"github.com/paneherd/paneherd/statusline"
)

// Backend delivers notifications. The notifier gives each its own goroutine and queue,
// and each send a deadline (ctx): Send must return when ctx ends.
type Backend interface {
	Name() string
	// Send delivers n, or says in one line what failed and what to do.
	Send(ctx context.Context, n Notification) error
}

// ErrSkipped is returned by a backend's Send for a notification it leaves alone by
// design (the sound for a stall or an exit): neither delivered nor failed, so it belongs
// in no backend's result.
var ErrSkipped = errors.New("skipped: this backend does nothing for this event")

// Describer is a backend that can say, in one line, what it will do ("osc777 to 2
// clients", "posts ntfy to https://ntfy.sh/…"), or why it cannot and what to do: for
// doctor and `notify test`. It only looks: it sends nothing. Its error says what to do.
type Describer interface {
	Describe(ctx context.Context) (string, error)
}

// ErrNoDesktop is returned by the desktop backend when no desktop session bus is known.
var ErrNoDesktop = errors.New("no desktop session bus")

// Desktop sends through beeep (D-Bus org.freedesktop.Notifications). It only calls beeep
// when a session bus address is known: godbus otherwise autolaunches a dbus-daemon, and on
// a headless box with dbus-x11 every process that tries leaks one. On macOS, which has no
// session bus, it runs osascript instead (macos.go).
type Desktop struct {
	// Env finds DBUS_SESSION_BUS_ADDRESS when the daemon's own environment lacks it
	// (tmux's global and session environments, filled by update-environment).
	Env func(ctx context.Context) map[string]string
	UID int
	// Whose names the process looking, in what FindBus says: "the daemon's" when the
	// daemon answers a doctor run from another shell; "" is "paneherd's".
	Whose string
	// GOOS is the platform whose path it takes, "" being the one paneherd runs on: the
	// macOS path is then tested on Linux too.
	GOOS string
}

// Name is "desktop".
func (d Desktop) Name() string { return "desktop" }

// Send delivers n as a desktop notification; critical urgency for what blocks a worker.
// Its text leaves tmux for the desktop: as Outbound makes it.
func (d Desktop) Send(ctx context.Context, n Notification) error {
	n = Outbound(n)
	if d.OnMacOS() {
		return d.sendMacOS(ctx, n)
	}
	addr, err := d.Bus(ctx)
	if err != nil {
		return err
	}
	useBus(addr)
	done := make(chan error, 1)
	go func() {
		if n.Critical {
			// Alert is beeep's only way to ask for critical urgency; its beep falls back
			// to a BEL on stdout, which for the daemon is /dev/null or a terminal it owns.
			done <- beeep.Alert(n.Title, n.Body, "")
		} else {
			done <- beeep.Notify(n.Title, n.Body, "")
		}
	}()
	// beeep's D-Bus call takes no context: a notification server that never answers
	// must not hold the notifier (or `notify test`) for ever.
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("desktop: %w", err)
		}
		return nil
	case <-time.After(desktopTimeout):
		return fmt.Errorf("desktop: no answer from the notification server within %s", desktopTimeout)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// busMu guards the one place the process environment changes.
var busMu sync.Mutex

// useBus points beeep at addr. beeep reaches the bus only through godbus's SessionBus,
// which reads DBUS_SESSION_BUS_ADDRESS from the process environment and takes no
// address of its own: so this, and nothing else, sets it, under a lock, just before
// beeep is called. The daemon's own environment lacks the address when tmux started it
// (update-environment fills tmux's, not ours).
func useBus(addr string) {
	busMu.Lock()
	defer busMu.Unlock()
	beeep.AppName = "paneherd"
	if os.Getenv("DBUS_SESSION_BUS_ADDRESS") != addr {
		os.Setenv("DBUS_SESSION_BUS_ADDRESS", addr)
	}
}

// desktopTimeout bounds one desktop notification.
const desktopTimeout = 5 * time.Second

// Bus returns the session bus address to use, or ErrNoDesktop with what was looked at.
// It only looks: useBus is where the process is told.
func (d Desktop) Bus(ctx context.Context) (string, error) {
	found, err := d.FindBus(ctx)
	return found.Addr, err
}

// FoundBus is a session bus address and, for a person (paneherd doctor), where it was
// found. On macOS, where notifications need no bus, Addr is the osascript that posts them.
type FoundBus struct {
	Addr string
	From string
}

// FindBus is Bus, saying where the address came from; on macOS, the osascript Send runs,
// or why there is none.
func (d Desktop) FindBus(ctx context.Context) (FoundBus, error) {
	if d.OnMacOS() {
		return d.findOsascript()
	}
	// godbus reads "autolaunch:" as no address at all, and autolaunches.
	usable := func(addr string) bool { return addr != "" && !strings.HasPrefix(addr, "autolaunch:") }
	if addr := os.Getenv("DBUS_SESSION_BUS_ADDRESS"); usable(addr) {
		return FoundBus{addr, "DBUS_SESSION_BUS_ADDRESS in " + d.whose() + " environment"}, nil
	}
	if d.Env != nil {
		if addr := d.Env(ctx)["DBUS_SESSION_BUS_ADDRESS"]; usable(addr) {
			return FoundBus{addr, "DBUS_SESSION_BUS_ADDRESS in tmux's environment"}, nil
		}
	}
	sock := d.busSocket()
	if fi, err := os.Stat(sock); err == nil && fi.Mode()&os.ModeSocket != 0 {
		return FoundBus{"unix:path=" + sock, "the session bus socket " + sock}, nil
	}
	return FoundBus{}, fmt.Errorf("%w: DBUS_SESSION_BUS_ADDRESS is unset in %s environment and in tmux's, and %s does not exist", ErrNoDesktop, d.whose(), sock)
}

// Describe says where a desktop notification would go (a Describer), or why it
// cannot: the bus and where it was found, or on macOS the osascript that posts it.
func (d Desktop) Describe(ctx context.Context) (string, error) {
	found, err := d.FindBus(ctx)
	if err != nil {
		return "", fmt.Errorf("desktop: %w", err)
	}
	if d.OnMacOS() {
		return found.From + " at " + found.Addr, nil
	}
	return "bus " + found.Addr + " from " + found.From, nil
}

func (d Desktop) whose() string {
	if d.Whose == "" {
		return "paneherd's"
	}
	return d.Whose
}

// busSocket is where a desktop session's bus listens when no address is given, where
// libdbus and sd-bus look too: $XDG_RUNTIME_DIR/bus, else /run/user/UID/bus.
func (d Desktop) busSocket() string {
	if dir := os.Getenv("XDG_RUNTIME_DIR"); dir != "" {
		return filepath.Join(dir, "bus")
	}
	return fmt.Sprintf("/run/user/%d/bus", d.UID)
}

// Tmux shows notifications on the attached clients' status lines, and rings their
// terminal bell if asked.
type Tmux struct {
	Server tmux.Server
	Bell   func() bool
}

// Name is "tmux".
func (t Tmux) Name() string { return "tmux" }

// ErrNoClient is returned by the tmux backend when no client is attached to show it on.
var ErrNoClient = errors.New("no tmux client attached")

// Send displays n on every attached client for a few seconds.
func (t Tmux) Send(ctx context.Context, n Notification) error {
	clients, err := Clients(ctx, t.Server)
	if err != nil {
		return fmt.Errorf("tmux: %w", err)
	}
	if len(clients) == 0 {
		return ErrNoClient
	}
	text := tmux.MessageText(statusline.Clean("paneherd: " + n.Title + ": " + n.Body))
	var cmds [][]string
	for _, c := range clients {
		if !c.Control {
			cmds = append(cmds, []string{"display-message", "-c", c.Name, "-d", "5000", text})
		}
	}
	if len(cmds) == 0 {
		return ErrNoClient
	}
	if _, err := t.Server.Run(ctx, nil, tmux.Chain(cmds)...); err != nil {
		return fmt.Errorf("tmux: %w", err)
	}
	if t.Bell != nil && t.Bell() {
		// The message is shown: a bell that cannot ring (its terminal busy until the
		// deadline) is no failure of it.
		ringBells(ctx, t.Server, clients)
	}
	return nil
}

// ringBells rings the terminal bell of each client a person uses, as every write to a
// client's terminal is made (writeClients): tmux has no command for it. It fails only
// when none rang. A control-mode client's terminal (iTerm2's -CC) reads tmux's protocol,
// not bells.
func ringBells(ctx context.Context, s tmux.Server, clients []Client) error {
	var writes []clientWrite
	for _, c := range clients {
		if !c.Control {
			writes = append(writes, clientWrite{c, []byte{'\a'}})
		}
	}
	if len(writes) == 0 {
		return ErrNoClient
	}
	if rung, failed := writeClients(ctx, s, writes); rung == 0 {
		return failures(failed)
	}
	return nil
}
