package controlmode

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/tmux/tmuxtest"
)

func TestCommandsAndOutputEvents(t *testing.T) {
	h := tmuxtest.New(t)
	pane := h.NewSession("s", "exec cat")
	var mu sync.Mutex
	var events []Event
	c, err := Attach(h.Server, "s", "ignore-size,pause-after=1", func(e Event) {
		mu.Lock()
		e.Data = append([]byte(nil), e.Data...) // only valid during the call
		events = append(events, e)
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	replies, err := c.Run(ctx, [][]string{
		{"list-panes", "-a", "-F", "#{pane_id} \"quoted\" ;x"},
		{"capture-pane", "-p", "-t", "%999"},
		{"display-message", "-p", "after"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if replies[0].Failed || strings.TrimSpace(replies[0].Output) != pane+` "quoted" ;x` {
		t.Errorf("list-panes reply %+v", replies[0])
	}
	if !replies[1].Failed || replies[2].Output != "after\n" {
		t.Errorf("a failing command must fail alone: %+v %+v", replies[1], replies[2])
	}

	h.Run("send-keys", "-t", pane, "-l", "%end 1 2 1 hello")
	h.Run("send-keys", "-t", pane, "Enter")
	// The pane echoes what was typed, then cat prints it again: its output events carry
	// the text, and Enter as tmux escapes it.
	tmuxtest.WaitFor(t, 15*time.Second, func() bool {
		mu.Lock()
		defer mu.Unlock()
		var printed []byte
		for _, e := range events {
			if e.Kind == "output" && len(e.Args) > 0 && e.Args[0] == pane {
				printed = append(printed, e.Data...)
			}
		}
		return bytes.Count(printed, []byte("%end 1 2 1 hello\\015\\012")) == 2
	})
	screen, err := c.Run(ctx, [][]string{{"capture-pane", "-p", "-t", pane}})
	if err != nil || !strings.Contains(screen[0].Output, "%end 1 2 1 hello") {
		t.Errorf("a screen line that looks like %%end cut the reply: %+v %v", screen, err)
	}
	h.Run("kill-session", "-t", "s")
	select {
	case <-c.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the client did not exit with its session")
	}
	if _, err := c.Run(ctx, [][]string{{"list-sessions"}}); err != ErrClosed {
		t.Errorf("Run after exit: %v", err)
	}
}

// Lines longer than the reader's buffer: a notification keeps its head (all an event
// needs) and the rest is skipped; a reply keeps every byte; the next line is intact.
func TestReadLineLongerThanTheBuffer(t *testing.T) {
	long := "%output %7 " + strings.Repeat("x", 200<<10) + "\n"
	for _, tc := range []struct {
		name  string
		whole bool
		want  string
	}{
		{"notification", false, long[:maxHead]},
		{"reply", true, long},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := bufio.NewReaderSize(strings.NewReader(long+"%exit\n"), 64<<10)
			got, cut, err := readLine(r, tc.whole)
			if err != nil || string(got) != tc.want || cut == tc.whole {
				t.Fatalf("got %d bytes (cut %v, %v), want %d", len(got), cut, err, len(tc.want))
			}
			if ev := parseEvent(got); tc.name == "notification" && (ev.Kind != "output" || ev.Args[0] != "%7") {
				t.Errorf("event from the head: %+v", ev)
			}
			next, cut, err := readLine(r, tc.whole)
			if err != nil || string(next) != "%exit\n" || cut {
				t.Errorf("next line %q, cut %v, %v", next, cut, err)
			}
		})
	}
}

// Send does not wait: its answer comes on the reading goroutine, in order with Run's
// replies; on a closed client it says ErrClosed.
func TestSendAnswersInOrder(t *testing.T) {
	h := tmuxtest.New(t)
	h.NewSession("s", "exec cat")
	c, err := Attach(h.Server, "s", "ignore-size,no-output", func(Event) {})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	answers := make(chan string, 2)
	for _, word := range []string{"one", "two"} {
		if err := c.Send([]string{"display-message", "-p", word}, func(r Reply, ok bool) {
			answers <- fmt.Sprintf("%s %v %v", strings.TrimSpace(r.Output), r.Failed, ok)
		}); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	replies, err := c.Run(ctx, [][]string{{"display-message", "-p", "three"}})
	if err != nil || replies[0].Output != "three\n" {
		t.Fatalf("Run after Send: %+v %v", replies, err)
	}
	for _, want := range []string{"one false true", "two false true"} {
		if got := <-answers; got != want {
			t.Errorf("answer %q, want %q", got, want)
		}
	}
	c.Close()
	if err := c.Send([]string{"list-sessions"}, func(Reply, bool) {}); err != ErrClosed {
		t.Errorf("Send after close: %v", err)
	}
}

// TestCloseEndsWithAHungServer: a server that answers nothing (stopped) never lets its
// client go; Close must end anyway, or the daemon's shutdown would hang.
func TestCloseEndsWithAHungServer(t *testing.T) {
	h := tmuxtest.New(t)
	h.NewSession("s", "exec cat")
	c, err := Attach(h.Server, "s", "ignore-size,no-output", func(Event) {})
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(h.Run("display-message", "-p", "#{pid}"))
	syscall.Kill(pid, syscall.SIGSTOP)
	defer syscall.Kill(pid, syscall.SIGCONT)
	closed := make(chan error, 1)
	go func() { closed <- c.Close() }()
	select {
	case <-closed:
	case <-time.After(30 * time.Second):
		t.Fatal("Close still waits 30 s after the server hung")
	}
}

// Counts tallies the commands a client sent, by name, and the notifications it was sent,
// by kind, with the bytes of %output.
func TestCountsTallyCommandsAndOutput(t *testing.T) {
	h := tmuxtest.New(t)
	pane := h.NewSession("s", "exec cat")
	counts := NewCounts()
	outputs := make(chan struct{}, 16)
	c, err := AttachCounting(h.Server, "s", "ignore-size", func(e Event) {
		if e.Kind == "output" {
			select {
			case outputs <- struct{}{}:
			default:
			}
		}
	}, counts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := c.Run(ctx, [][]string{{"display-message", "-p", "a"}, {"display-message", "-p", "b"}, {"list-sessions"}}); err != nil {
		t.Fatal(err)
	}
	h.Run("send-keys", "-t", pane, "-l", "hello")
	select {
	case <-outputs:
	case <-ctx.Done():
		t.Fatal("no output notification for the keys sent")
	}
	commands, notifications, bytes := counts.Snapshot()
	if commands["display-message"] != 2 || commands["list-sessions"] != 1 {
		t.Errorf("commands %v; want display-message 2, list-sessions 1", commands)
	}
	if notifications["output"] == 0 || bytes == 0 {
		t.Errorf("notifications %v, %d output bytes; want the %%output counted", notifications, bytes)
	}
}

// Both kinds of output notification give the pane and what it printed, escapes kept.
func TestParseEventData(t *testing.T) {
	for _, tc := range []struct{ line, pane, data string }{
		{`%output %3 \033[2Kab c\015\012`, "%3", `\033[2Kab c\015\012`},
		{`%extended-output %12 1500 : x : y`, "%12", "x : y"},
		{`%output %4 `, "%4", ""},
	} {
		ev := parseEvent([]byte(tc.line))
		if ev.Kind != "output" || ev.Args[0] != tc.pane || string(ev.Data) != tc.data {
			t.Errorf("%q: got %s %v %q", tc.line, ev.Kind, ev.Args, ev.Data)
		}
	}
	if ev := parseEvent([]byte("%window-add @3")); ev.Kind != "window-add" || ev.Args[0] != "@3" || ev.Data != nil {
		t.Errorf("window-add: %+v", ev)
	}
}

// What a pane printed, every byte value included, comes back from its output events
// unescaped byte for byte.
func TestUnescapeGivesWhatThePanePrinted(t *testing.T) {
	for _, tc := range []struct{ data, want string }{
		{`\033[2Kab c\015\012`, "\x1b[2Kab c\r\n"},
		{`back\134slash \0011`, "back\\slash \x011"},
		{`é ✶ \9 \07`, `é ✶ \9 \07`}, // not three octal digits: kept as is
	} {
		if got := string(Unescape([]byte(tc.data))); got != tc.want {
			t.Errorf("Unescape(%q) = %q, want %q", tc.data, got, tc.want)
		}
	}

	h := tmuxtest.New(t)
	pane := h.NewSession("s", "exec sleep 600")
	var mu sync.Mutex
	var printed []byte
	c, err := Attach(h.Server, "s", "ignore-size", func(e Event) {
		if e.Kind == "output" && e.Args[0] == pane {
			mu.Lock()
			printed = append(printed, Unescape(e.Data)...)
			mu.Unlock()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	want := "\x1b[31mred\\\x1b[m \x01\x07 é ✶\r\n"
	h.Run("respawn-pane", "-k", "-t", pane, `printf '\033[31mred\134\033[m \001\007 é ✶\n'; exec sleep 600`)
	tmuxtest.WaitFor(t, 15*time.Second, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return bytes.Contains(printed, []byte(want))
	})
}
