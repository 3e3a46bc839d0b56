package doctor

import (
	"context"
	"errors"
	"os"
	"strings"

	"github.com/paneherd/paneherd/internal/notify"
	"github.com/paneherd/paneherd/internal/options"
	"github.com/paneherd/paneherd/internal/wire"
)

// checkNotify says how a notification would reach a person: a line for
// @paneherd-notify-backend, then one per extra backend its option turns on
// (checkExtras).
func (d Doctor) checkNotify(ctx context.Context, values options.Values, serverUp bool, about *wire.About) []Check {
	checks := []Check{d.checkDesktop(ctx, values, serverUp, about)}
	if options.NotifyBackend.In(values) == "off" {
		return checks // off silences the extra backends too: the line says so
	}
	return append(checks, d.checkExtras(ctx, values.Notify(), about)...)
}

// checkDesktop is the desktop-or-tmux choice: the desktop bus as the notifier finds it
// (notify.Desktop.FindBus: its process's environment, tmux's, the bus socket), or why
// there is none; on macOS, the osascript that posts to Notification Center. A running daemon is asked (about): its environment, not this command's,
// is where its notifications start; with none, this process looks the same way.
func (d Doctor) checkDesktop(ctx context.Context, values options.Values, serverUp bool, about *wire.About) Check {
	backend := options.NotifyBackend.In(values)
	if backend == "off" || backend == "tmux" {
		return notifyCheck(backend, notify.FoundBus{}, nil, "", "")
	}
	if (notify.Desktop{GOOS: d.GOOS}).OnMacOS() {
		found, err := d.findBus(ctx, nil, about)
		return macOSNotifyCheck(backend, found, err)
	}
	tmuxEnv := map[string]string{}
	if serverUp {
		tmuxEnv = notify.TmuxEnv(d.Server)(ctx)
	}
	found, err := d.findBus(ctx, tmuxEnv, about)
	return notifyCheck(backend, found, err, missingSocket(found.Addr), d.display(tmuxEnv))
}

// checkExtras is a line per extra backend (terminal, command, webhook, sound) the
// options turn on: what it will do, or why it cannot. The running daemon's own (about)
// when it says, since its environment (PATH, tmux's clients) is where they run; else
// built here from the options, the way the daemon builds them.
func (d Doctor) checkExtras(ctx context.Context, cfg notify.Config, about *wire.About) []Check {
	if about != nil && about.Notify != nil {
		var checks []Check
		for _, b := range about.Notify {
			checks = append(checks, extraCheck(b.Name, b.Found, b.Error, b.Unused))
		}
		return checks
	}
	host, _ := os.Hostname()
	backends, problems := notify.Extras(cfg, notify.ExtraEnv{Server: d.Server, Host: host})
	var checks []Check
	for _, b := range notify.BackendStatuses(notify.Describe(ctx, backends, problems)) {
		checks = append(checks, extraCheck(b.Name, b.Found, b.Error, b.Unused))
	}
	return checks
}

// extraCheck is an extra backend's line: ok with what it will do; a failure when its
// configuration is wrong (unused: it is left out); a warning when it is there but says
// it cannot deliver now (why says what to do).
func extraCheck(name, found, why string, unused bool) Check {
	check := "notify-" + name
	switch {
	case why == "":
		return ok(check, found)
	case unused:
		return fail(check, why, "the other backends notify without it; fix or unset @paneherd-notify-"+name+", then try it with paneherd notify test")
	}
	return warn(check, why, "the other backends notify meanwhile; paneherd notify test tries it")
}

// findBus is the bus as the daemon found it (about), else as this process finds it.
func (d Doctor) findBus(ctx context.Context, tmuxEnv map[string]string, about *wire.About) (notify.FoundBus, error) {
	if about != nil && (about.Bus.Addr != "" || about.Bus.Err != "") {
		if about.Bus.Err != "" {
			return notify.FoundBus{}, errors.New(about.Bus.Err)
		}
		return notify.FoundBus{Addr: about.Bus.Addr, From: about.Bus.From}, nil
	}
	desktop := notify.Desktop{UID: d.UID, Env: func(context.Context) map[string]string { return tmuxEnv }, GOOS: d.GOOS}
	return desktop.FindBus(ctx)
}

// display names a graphical display set here or in tmux's environment ("" : none):
// with one, a bus is expected, but paneherd never lets D-Bus autolaunch one.
func (d Doctor) display(tmuxEnv map[string]string) string {
	for _, v := range []string{"WAYLAND_DISPLAY", "DISPLAY"} {
		if val := d.Getenv(v); val != "" {
			return v + "=" + val
		}
		if val := tmuxEnv[v]; val != "" {
			return v + "=" + val
		}
	}
	return ""
}

func notifyCheck(backend string, found notify.FoundBus, busErr error, missing, display string) Check {
	switch backend {
	case "off":
		return ok("notify", "off (@paneherd-notify-backend off): paneherd notifies no one")
	case "tmux":
		return ok("notify", "tmux messages on the attached clients (@paneherd-notify-backend tmux)")
	}
	if busErr == nil && missing == "" {
		fallback := ", tmux messages when it fails"
		if backend == "desktop" {
			fallback = " (@paneherd-notify-backend desktop: no tmux fallback)"
		}
		return ok("notify", "desktop, bus "+found.Addr+" from "+found.From+fallback)
	}
	why := "the bus address " + found.Addr + " (from " + found.From + ") names " + missing + ", which does not exist (an old desktop session's?)"
	if busErr != nil {
		why = busErr.Error()
		if display != "" {
			why += "; " + display + " is set, but paneherd never lets D-Bus start a bus of its own"
		}
	}
	attach := "attach a tmux client from your desktop session (update-environment brings its bus address)"
	if backend == "desktop" {
		return fail("notify", why+"; with @paneherd-notify-backend desktop no notification is shown",
			attach+", or set -g @paneherd-notify-backend auto to fall back on tmux messages")
	}
	return warn("notify", why+"; notifications go to tmux messages (display-message) instead",
		"for desktop ones "+attach+"; to say tmux is what you want, set -g @paneherd-notify-backend tmux")
}

// macOSNotifyCheck is notifyCheck's desktop part on macOS, where no bus is needed: found
// is the osascript the notifier runs, err why there is none.
func macOSNotifyCheck(backend string, found notify.FoundBus, err error) Check {
	if err == nil {
		fallback := ", tmux messages when it fails"
		if backend == "desktop" {
			fallback = " (@paneherd-notify-backend desktop: no tmux fallback)"
		}
		return ok("notify", "desktop, "+found.From+" at "+found.Addr+fallback)
	}
	path := "put /usr/bin on the PATH tmux starts paneherd with, then paneherd restart"
	if backend == "desktop" {
		return fail("notify", err.Error()+"; with @paneherd-notify-backend desktop no notification is shown",
			path+", or set -g @paneherd-notify-backend auto to fall back on tmux messages")
	}
	return warn("notify", err.Error()+"; notifications go to tmux messages (display-message) instead",
		"for desktop ones "+path+"; to say tmux is what you want, set -g @paneherd-notify-backend tmux")
}

// missingSocket is the socket a unix:path= bus address names, when it does not exist: an
// address left over from a desktop session that has ended.
func missingSocket(addr string) string {
	first, _, _ := strings.Cut(addr, ";")
	rest, isUnix := strings.CutPrefix(first, "unix:")
	if !isUnix {
		return ""
	}
	for _, kv := range strings.Split(rest, ",") {
		if path, isPath := strings.CutPrefix(kv, "path="); isPath {
			if _, err := os.Stat(path); err != nil {
				return path
			}
		}
	}
	return ""
}
