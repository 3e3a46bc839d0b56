package daemon

import (
	"net"
	"strings"
	"testing"
	"time"

	"github.com/paneherd/paneherd/hooks"
)

// datagram is an event as `paneherd hook` sends it: its name and arguments, a line each.
func datagram(e hooks.Event) []byte {
	return []byte(strings.Join(append([]string{e.Name}, e.Args...), "\n"))
}

// TestBadHookFloodKeepsTheLogSmall floods the hook socket with agent events that could
// not be read: the log gets their first line, not one line each (a line each would let
// any process of the user's grow the log as fast as it sends).
func TestBadHookFloodKeepsTheLogSmall(t *testing.T) {
	r := newRig(t, "poll")
	r.start()
	conn, err := net.Dial("unixgram", r.dir.Socket())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	before := len(r.log())

	bad := datagram(hooks.ReadAgentEvent(hooks.Claude, "Stop", []byte("not json")).Datagram())
	conn.SetWriteDeadline(time.Now().Add(60 * time.Second))
	const flood = 100_000
	for i := range flood {
		if _, err := conn.Write(bad); err != nil {
			t.Fatalf("datagram %d: %v", i, err)
		}
	}
	// The socket is read in order: once a good event sent after the flood is in the log,
	// the daemon has read every datagram of the flood (those its queue had no room for
	// are dropped unread).
	marker := datagram(hooks.AgentEvent{Agent: hooks.Claude, Event: "Stop", Pane: "%424242"}.Datagram())
	r.waitFor("an event sent after the flood", func() bool {
		conn.Write(marker)
		return strings.Contains(r.log(), `"pane":"%424242"`)
	})

	grown := r.log()[before:]
	if n := strings.Count(grown, "agent hook not understood"); n == 0 {
		t.Fatalf("no line about the bad events; the log grew by:\n%s", tail(grown, 20))
	}
	t.Logf("%d bad events grew the log by %d bytes", flood, len(grown))
	if len(grown) > 32<<10 {
		t.Errorf("%d bad events grew the log by %d bytes, want a few lines; its tail:\n%s", flood, len(grown), tail(grown, 5))
	}
}
