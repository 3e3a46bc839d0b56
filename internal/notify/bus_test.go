package notify

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFindBusSays where the address came from, looking where the notifier looks and in
// that order: paneherd's environment, tmux's, then the session bus socket in
// $XDG_RUNTIME_DIR (else /run/user/UID).
func TestFindBus(t *testing.T) {
	runtime, err := os.MkdirTemp("", "nb") // short: a socket path must fit sun_path
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(runtime) })
	l, err := net.Listen("unix", filepath.Join(runtime, "bus"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	empty := t.TempDir()
	tmuxEnv := func(addr string) func(context.Context) map[string]string {
		return func(context.Context) map[string]string { return map[string]string{"DBUS_SESSION_BUS_ADDRESS": addr} }
	}
	tests := []struct {
		name, own, runtimeDir string
		env                   func(context.Context) map[string]string
		want                  FoundBus
		wantErr               string
	}{
		{"own environment", "unix:path=/own", empty, tmuxEnv("unix:path=/tmux"),
			FoundBus{"unix:path=/own", "DBUS_SESSION_BUS_ADDRESS in paneherd's environment"}, ""},
		{"tmux's environment", "", empty, tmuxEnv("unix:path=/tmux"),
			FoundBus{"unix:path=/tmux", "DBUS_SESSION_BUS_ADDRESS in tmux's environment"}, ""},
		{"autolaunch is no address", "autolaunch:", runtime, tmuxEnv("autolaunch:"),
			FoundBus{"unix:path=" + filepath.Join(runtime, "bus"), "the session bus socket " + filepath.Join(runtime, "bus")}, ""},
		{"no bus anywhere", "", empty, nil, FoundBus{}, filepath.Join(empty, "bus") + " does not exist"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("DBUS_SESSION_BUS_ADDRESS", tt.own)
			t.Setenv("XDG_RUNTIME_DIR", tt.runtimeDir)
			got, err := Desktop{Env: tt.env, UID: -1}.FindBus(context.Background())
			if tt.wantErr != "" {
				if !errors.Is(err, ErrNoDesktop) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("err = %v, want ErrNoDesktop saying %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("FindBus = %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}
