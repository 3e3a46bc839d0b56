package notify

import (
	"context"
	"strings"
	"testing"

	"github.com/paneherd/paneherd/internal/dbustest"
)

// TestDesktopSendsOutboundText: a pane's name and screen reach the desktop with what
// looks like a secret masked and no control or invisible character.
func TestDesktopSendsOutboundText(t *testing.T) {
	bus := dbustest.Bus(t)
	server := dbustest.Serve(t, bus)
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", bus)
	hostile := Notification{Title: "api\x1b]0;pwned\x07 \u202ename needs your confirmation", Critical: true,
		Body: "curl -H 'Authorization: Bearer sk-ant-api03-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' $(touch x)\nin s:1.0"}
	if err := (Desktop{UID: -1}).Send(context.Background(), hostile); err != nil {
		t.Fatal(err)
	}
	got := server.Received()
	if len(got) != 1 {
		t.Fatalf("%d notifications received, want 1", len(got))
	}
	text := got[0].Summary + "\n" + got[0].Body
	for _, raw := range []string{"\x1b", "\x07", "\u202e", "AAAAAAAAAAAAAAAAAAAAAAAA"} {
		if strings.Contains(text, raw) {
			t.Errorf("the desktop got %q raw:\n%q", raw, text)
		}
	}
	if !strings.Contains(got[0].Body, "$(touch x)") || !strings.HasSuffix(got[0].Body, "\nin s:1.0") {
		t.Errorf("body %q: want the text itself (not run, not lost) with its lines", got[0].Body)
	}
}
