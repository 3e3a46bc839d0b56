package termrec

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/tmux/tmuxtest"
)

// A recording comes back from its encoding as it was, every byte of every write
// included (escapes, newlines, half a UTF-8 character, a NUL).
func TestEncodeDecodeRoundTrip(t *testing.T) {
	rec := Recording{Agent: "claude", Version: "2.1.197", State: "thinking", Cols: 120, Rows: 40,
		Duration: 9 * time.Second,
		Start:    Screen{Text: "\x1b[1mhi\x1b[0m  \n\n", CursorX: 2, CursorY: 1, CursorHidden: true, ScrollBottom: 39},
		End:      Screen{Text: "bye\n", Alternate: true, ScrollTop: 1, ScrollBottom: 38},
		Writes: []Write{
			{At: 131872 * time.Microsecond, Data: []byte("\x1b[7A\x1b[38;5;174m✶\x1b[39m\r\r\n\n")},
			{At: 2 * time.Second, Data: []byte("\xe2\x9c")},
			{At: 2*time.Second + time.Microsecond, Data: []byte("\xb6\x00 12 34\n")},
		}}
	var b bytes.Buffer
	if err := rec.Encode(&b); err != nil {
		t.Fatal(err)
	}
	got, err := Decode(&b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, rec) {
		t.Errorf("decoded %+v\nwant    %+v", got, rec)
	}
	if _, err := Decode(strings.NewReader("plain text")); !errors.Is(err, ErrFormat) {
		t.Errorf("Decode of text: %v, want ErrFormat", err)
	}
}

// Drawn on a terminal of its size, a screen shows what it was captured from, with its
// colours, its cursor where it was and hidden as it was: a replay starts where the
// recording did.
func TestDrawShowsTheCapturedScreen(t *testing.T) {
	h := tmuxtest.New(t)
	const size = "-x 40 -y 8"
	draw := "printf '\\033[2J\\033[H\\033[1;31mred\\033[0m plain\\r\\n\\033[2mfaint\\033[0m line   \\033[7;5Hcursor\\033[?25l'; exec sleep 600"
	src := h.Run(strings.Fields("new-session -d -s src " + size + " -P -F #{pane_id}")...)
	h.Run("respawn-pane", "-k", "-t", strings.TrimSpace(src), draw)
	src = strings.TrimSpace(src)
	tmuxtest.WaitFor(t, 10*time.Second, func() bool { return strings.Contains(h.Run("capture-pane", "-p", "-t", src), "cursor") })
	want := look(t, h, src)

	file := filepath.Join(t.TempDir(), "screen")
	if err := os.WriteFile(file, want.Draw(), 0o644); err != nil {
		t.Fatal(err)
	}
	dst := strings.TrimSpace(h.Run(strings.Fields("new-session -d -s dst " + size + " -P -F #{pane_id}")...))
	h.Run("respawn-pane", "-k", "-t", dst, "stty -echo; cat "+file+"; exec sleep 600")
	tmuxtest.WaitFor(t, 10*time.Second, func() bool { return strings.Contains(h.Run("capture-pane", "-p", "-t", dst), "cursor") })
	if got := look(t, h, dst); !reflect.DeepEqual(got, want) {
		t.Errorf("drawn %+v\nwant  %+v", got, want)
	}
}

// look is the pane's screen as the recorder takes it.
func look(t *testing.T, h *tmuxtest.Handle, pane string) Screen {
	t.Helper()
	s := Screen{Text: h.Run("capture-pane", "-p", "-e", "-N", "-t", pane)}
	var shown, alt int
	info := h.Run("display-message", "-p", "-t", pane, "#{cursor_x} #{cursor_y} #{cursor_flag} #{alternate_on} #{scroll_region_upper} #{scroll_region_lower}")
	if _, err := fmt.Sscan(info, &s.CursorX, &s.CursorY, &shown, &alt, &s.ScrollTop, &s.ScrollBottom); err != nil {
		t.Fatalf("%q: %v", info, err)
	}
	s.CursorHidden, s.Alternate = shown == 0, alt == 1
	return s
}
