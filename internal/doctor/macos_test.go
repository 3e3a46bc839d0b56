package doctor

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paneherd/paneherd/internal/notify"
	"github.com/paneherd/paneherd/internal/options"
	"github.com/paneherd/paneherd/internal/wire"
)

// TestCheckNotifyOnMacOS: on macOS the notify line names the osascript that posts to
// Notification Center, as the daemon finds it or, with no daemon, as doctor does; when
// there is none it says so and what to do. It never speaks of a session bus, which macOS
// does not need.
func TestCheckNotifyOnMacOS(t *testing.T) {
	bin := t.TempDir()
	osascript := filepath.Join(bin, "osascript")
	if err := os.WriteFile(osascript, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	noEnv := func(string) string { return "" }
	noOsascript := "no osascript to post macOS notifications: it is not on the daemon's PATH (macOS keeps it in /usr/bin)"
	tests := []struct {
		name  string
		path  string
		about *wire.About
		want  expect
	}{
		{"found here", bin, nil,
			expect{OK, "desktop, osascript (macOS Notification Center) at " + osascript + ", tmux messages when it fails", ""}},
		{"found by the daemon", t.TempDir(), &wire.About{Bus: wire.BusFound{Addr: "/usr/bin/osascript", From: "osascript (macOS Notification Center)"}},
			expect{OK, "desktop, osascript (macOS Notification Center) at /usr/bin/osascript, tmux messages when it fails", ""}},
		{"none here", t.TempDir(), nil,
			expect{Warn, "no osascript to post macOS notifications: it is not on paneherd's PATH", "put /usr/bin on the PATH tmux starts paneherd with"}},
		{"none for the daemon", bin, &wire.About{Bus: wire.BusFound{Err: noOsascript}},
			expect{Warn, noOsascript + "; notifications go to tmux messages", "@paneherd-notify-backend tmux"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("PATH", tt.path)
			got := Doctor{GOOS: "darwin", UID: -1, Getenv: noEnv}.checkDesktop(context.Background(), options.Defaults(), false, tt.about)
			tt.want.check(t, got)
			if strings.Contains(got.Found+got.Fix, "bus") {
				t.Errorf("on macOS the notify line speaks of a bus: %q, fix %q", got.Found, got.Fix)
			}
		})
	}
	t.Run("desktop only", func(t *testing.T) {
		found := notify.FoundBus{Addr: "/usr/bin/osascript", From: "osascript (macOS Notification Center)"}
		expect{OK, "at /usr/bin/osascript (@paneherd-notify-backend desktop: no tmux fallback)", ""}.check(t, macOSNotifyCheck("desktop", found, nil))
		expect{Fail, noOsascript + "; with @paneherd-notify-backend desktop no notification is shown", "@paneherd-notify-backend auto"}.check(t,
			macOSNotifyCheck("desktop", notify.FoundBus{}, errors.New(noOsascript)))
	})
	t.Run("linux still looks for a bus", func(t *testing.T) {
		t.Setenv("PATH", bin)
		got := Doctor{GOOS: "linux", UID: -1, Getenv: noEnv}.checkDesktop(context.Background(), options.Defaults(), false, nil)
		if !strings.Contains(got.Found, notify.ErrNoDesktop.Error()) {
			t.Errorf("linux notify line = %q, want the missing bus", got.Found)
		}
	})
}
