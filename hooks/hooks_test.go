package hooks

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestCommandQuotesForTmuxAndShell(t *testing.T) {
	h := Hook{"pane-exited", []string{"#{hook_pane}"}}
	got := h.Command("/opt/my $dir/#x/paneherd", "/tmp/tmux-0/default")
	want := `run-shell -b "'/opt/my \$dir/##x/paneherd' -S '/tmp/tmux-0/default' hook pane-exited #{q:hook_pane}"`
	if got != want {
		t.Errorf("Command =\n %s\nwant\n %s", got, want)
	}
}

func TestSendAndListen(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "d.sock")
	start := time.Now()
	if err := Send(sock, Event{Name: "x"}); !errors.Is(err, ErrNoDaemon) {
		t.Fatalf("Send with no daemon: %v, want ErrNoDaemon", err)
	}
	// Timing-sensitive: a second of slack over the timeout, for a loaded machine's
	// scheduling. What matters is that Send never waits out more than its timeout.
	if time.Since(start) > sendTimeout+time.Second {
		t.Errorf("Send with no daemon took %v", time.Since(start))
	}
	l, err := Listen(sock)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events := l.Events(ctx)
	if err := Send(sock, Event{Name: "after-new-window", Args: []string{"@3"}}); err != nil {
		t.Fatal(err)
	}
	select {
	case e := <-events:
		if e.Name != "after-new-window" || strings.Join(e.Args, ",") != "@3" {
			t.Errorf("got %+v", e)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no event within 5s")
	}
	l.Close()
	if err := Send(sock, Event{Name: "x"}); !errors.Is(err, ErrNoDaemon) {
		t.Errorf("Send after Close: %v", err)
	}
}

func TestDecodeRejectsOversizeAndEmpty(t *testing.T) {
	if _, err := decode(nil); err == nil {
		t.Error("empty datagram accepted")
	}
	if _, err := decode(make([]byte, maxDatagram+1)); err == nil {
		t.Error("oversize datagram accepted")
	}
}

// TestSendRefusesASocketNotOurs: a hook's event (a pane's name, an agent's summary) goes
// only to a socket of the user's own.
func TestSendRefusesASocketNotOurs(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("giving a socket to another user needs root")
	}
	sock := filepath.Join(t.TempDir(), "d.sock")
	l, err := Listen(sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events := l.Events(ctx)
	if err := os.Chown(sock, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	err = Send(sock, Event{Name: "x"})
	if err == nil || !strings.Contains(err.Error(), "belongs to uid 65534") {
		t.Errorf("Send to a socket of uid 65534 = %v, want a refusal", err)
	}
	// A datagram sent past the check comes after the refused one, had it gone.
	conn, err := net.Dial("unixgram", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.Write(Event{Name: "marker"}.encode())
	select {
	case e := <-events:
		if e.Name != "marker" {
			t.Errorf("the event reached a socket not ours: %+v", e)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no event within 5s")
	}
}
