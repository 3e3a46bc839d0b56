package paths

import (
	"strings"
	"testing"
)

func TestForServerAndSocket(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	d, err := ForServer("default-1a2b", env(map[string]string{"HOME": "/home/u"}))
	if err != nil || string(d) != "/home/u/.local/state/paneherd/default-1a2b" {
		t.Fatalf("ForServer = %q, %v", d, err)
	}
	if d.Socket() != "/home/u/.local/state/paneherd/default-1a2b/daemon.sock" {
		t.Errorf("Socket = %q", d.Socket())
	}
	if _, err := ForServer("k", env(nil)); err == nil {
		t.Error("no HOME and no XDG_STATE_HOME: want an error")
	}
	deep := Dir("/home/" + strings.Repeat("very-long-name/", 8) + "paneherd/k")
	s := deep.Socket()
	if len(s) > maxSocketPath || s != deep.Socket() || strings.HasPrefix(s, string(deep)) {
		t.Errorf("socket for a deep state dir = %q", s)
	}
	if other := Dir(string(deep) + "2").Socket(); other == s {
		t.Errorf("two state dirs share the socket %q", s)
	}
}
