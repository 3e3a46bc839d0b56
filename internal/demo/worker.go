// Package demo runs paneherd on a private tmux server with workers that play real
// captured screens of Claude Code, Codex CLI, Gemini CLI and a shell, so a newcomer sees
// every state in the status bar within seconds, with nothing to install or download.
package demo

import (
	"context"
	"embed"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"
	"time"
)

//go:embed screens
var screens embed.FS

// Worker is one demo pane.
type Worker struct {
	Name string
	Pack string // the directory of its screens, and the pack that reads them
}

// Workers are the demo's panes.
var Workers = []Worker{
	{"claude-api", "claude"},
	{"codex-web", "codex"},
	{"gemini-docs", "gemini"},
	{"shell-build", "shell"},
}

// step is one stretch of a worker's script: the frames it shows in turn, for how long.
type step struct {
	frames []string // file names; several animate, one frame every frameEvery
	hold   time.Duration
}

const frameEvery = 400 * time.Millisecond

// script is what every worker plays, each from its own starting step so that all states
// are on show at once. READY holds longer than the packs' settle time.
var script = []step{
	{[]string{"ready.ansi"}, 3 * time.Second},
	{[]string{"busy-*"}, 4 * time.Second},
	{[]string{"needs_confirmation.ansi"}, 3 * time.Second},
	{[]string{"busy-*"}, 2 * time.Second},
	{[]string{"error.ansi"}, 3 * time.Second},
}

// Play draws the worker's screens on w in a loop until ctx ends, starting at step start.
func Play(ctx context.Context, w io.Writer, pack string, start int) error {
	for i := start; ; i++ {
		st := script[i%len(script)]
		frames, err := load(pack, st.frames[0])
		if err != nil {
			return err
		}
		if err := show(ctx, w, frames, st.hold); err != nil {
			return err
		}
	}
}

// show draws frames in turn for hold.
func show(ctx context.Context, w io.Writer, frames []string, hold time.Duration) error {
	end := time.Now().Add(hold)
	for i := 0; time.Now().Before(end); i++ {
		// Home, clear, then the screen: a real CLI redraws the same way.
		if _, err := io.WriteString(w, "\x1b[H\x1b[2J"+frames[i%len(frames)]); err != nil {
			return err
		}
		wait := min(time.Until(end), frameEvery)
		if len(frames) == 1 {
			wait = time.Until(end)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
	}
	return nil
}

// Frames returns the demo's screens for a state of a pack ("ready", "busy",
// "needs_confirmation", "error"), ready to draw: the benchmark plays them too.
func Frames(pack, state string) ([]string, error) {
	if state == "busy" {
		return load(pack, "busy-*")
	}
	return load(pack, state+".ansi")
}

// load reads the frames matching pattern in the pack's screens, trimmed for drawing.
func load(pack, pattern string) ([]string, error) {
	names, err := fs.Glob(screens, path.Join("screens", pack, pattern)) // sorted
	if err != nil || len(names) == 0 {
		return nil, fmt.Errorf("demo: no screens %s/%s", pack, pattern)
	}
	var frames []string
	for _, n := range names {
		b, err := screens.ReadFile(n)
		if err != nil {
			return nil, err
		}
		frames = append(frames, trimBottom(string(b)))
	}
	return frames, nil
}

// trimBottom drops the blank rows under a captured screen and the final newline, so the
// screen's bottom stays in view in a pane of any height, as the real program's would.
func trimBottom(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for len(lines) > 0 && blank(lines[len(lines)-1]) {
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines, "\r\n")
}

// blank reports whether a captured row shows nothing: only spaces and escape sequences.
func blank(row string) bool {
	inEscape := false
	for _, r := range row {
		switch {
		case r == 0x1b:
			inEscape = true
		case inEscape:
			if r >= 0x40 && r <= 0x7e && r != '[' {
				inEscape = false
			}
		case r != ' ':
			return false
		}
	}
	return true
}
