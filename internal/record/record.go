// Package record saves a pane's screen each time it changes, with the state paneherd read
// for it: a screen to send with a bug report, or the start of a pack's fixture set. Each
// frame is NNNN-STATE-HHMMSS.mmm.txt (as `capture-pane -p` prints it) and .ansi (with -e),
// named like the fixtures, and a line in index.tsv.
package record

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/paneherd/paneherd/internal/screen"
	"github.com/paneherd/paneherd/internal/tmux"
	"github.com/paneherd/paneherd/internal/wire"
	"github.com/paneherd/paneherd/packs"
)

// Reading is what paneherd made of a pane at one moment.
type Reading struct {
	State, Rule, Summary string
}

// Recorder records one pane.
type Recorder struct {
	Server tmux.Server
	PaneID string
	Dir    string
	// Daemon says what the running daemon shows for the pane now (its state in the bar).
	Daemon func() (Reading, error)
	// Pack reads each saved screen too, so a file's own reading sits beside the bar's; nil:
	// none.
	Pack     *packs.Pack
	Interval time.Duration // between looks
	// Saved is told of each frame written.
	Saved func(Frame)

	next int    // number of the next frame
	last string // the last saved .ansi capture
}

// Frame is one saved screen.
type Frame struct {
	N      int
	At     time.Time
	Path   string // without extension
	Daemon Reading
	Pack   Reading
}

// Run looks at the pane every Interval and saves each screen that differs from the last,
// until ctx ends (nil) or the pane goes (ErrPaneGone).
func (r *Recorder) Run(ctx context.Context) error {
	if err := r.prepare(); err != nil {
		return err
	}
	t := time.NewTicker(r.Interval)
	defer t.Stop()
	for {
		if err := r.look(ctx); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// frameName is NNNN-STATE-…: numbering goes on after frames already in the directory,
// so recording again into it overwrites nothing.
var frameName = regexp.MustCompile(`^(\d{4,})-`)

func (r *Recorder) prepare() error {
	if r.Interval <= 0 {
		return fmt.Errorf("record: interval %v: give a positive duration", r.Interval)
	}
	// Screens may show secrets: what is recorded is the user's alone.
	if err := os.MkdirAll(r.Dir, 0o700); err != nil {
		return fmt.Errorf("record: %w", err)
	}
	entries, err := os.ReadDir(r.Dir)
	if err != nil {
		return fmt.Errorf("record: %w", err)
	}
	for _, e := range entries {
		if m := frameName.FindStringSubmatch(e.Name()); m != nil {
			n, _ := strconv.Atoi(m[1])
			r.next = max(r.next, n+1)
		}
	}
	r.next = max(r.next, 1)
	return nil
}

// look captures the pane, with escapes and without, and saves it if it changed.
func (r *Recorder) look(ctx context.Context) error {
	ansi, plain, err := r.capture(ctx)
	if err != nil {
		return err
	}
	if ansi == r.last {
		return nil
	}
	f := Frame{N: r.next, At: time.Now()}
	if r.Daemon != nil {
		if f.Daemon, err = r.Daemon(); err != nil {
			f.Daemon = Reading{State: "NO_DAEMON", Summary: err.Error()}
		}
	}
	if r.Pack != nil {
		res := r.Pack.Classify(screen.Parse(ansi))
		f.Pack = Reading{State: string(res.State), Rule: res.Rule, Summary: res.Summary}
	}
	if err := r.save(&f, plain, ansi); err != nil {
		return err
	}
	r.last, r.next = ansi, r.next+1
	if r.Saved != nil {
		r.Saved(f)
	}
	return nil
}

func (r *Recorder) capture(ctx context.Context) (ansi, plain string, err error) {
	// Capture leaves a vanished pane out of its result.
	withEscapes, err := r.Server.Capture(ctx, []string{r.PaneID}, true)
	if err != nil {
		return "", "", err
	}
	bare, err := r.Server.Capture(ctx, []string{r.PaneID}, false)
	if err != nil {
		return "", "", err
	}
	ansi, okA := withEscapes[r.PaneID]
	plain, okP := bare[r.PaneID]
	if !okA || !okP {
		return "", "", fmt.Errorf("%w: %s", wire.ErrPaneGone, r.PaneID)
	}
	return ansi, plain, nil
}

// save writes the frame's two files and its index line. The state in the name is the
// bar's (the pack's without a daemon): rename it to what a person reads, and the pair is
// a fixture.
func (r *Recorder) save(f *Frame, plain, ansi string) error {
	st := f.Daemon.State
	if st == "" || st == "NO_DAEMON" {
		st = f.Pack.State
	}
	f.Path = filepath.Join(r.Dir, fmt.Sprintf("%04d-%s-%s", f.N, orUnknown(st), f.At.Format("150405.000")))
	for ext, text := range map[string]string{".txt": plain, ".ansi": ansi} {
		if err := os.WriteFile(f.Path+ext, []byte(text), 0o600); err != nil {
			return fmt.Errorf("record: %w", err)
		}
	}
	return r.index(*f)
}

const indexHeader = "frame\ttime\tbar_state\tbar_rule\tpack_state\tpack_rule\tsummary\n"

// index appends the frame to index.tsv.
func (r *Recorder) index(f Frame) error {
	path := filepath.Join(r.Dir, "index.tsv")
	_, statErr := os.Stat(path)
	file, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("record: %w", err)
	}
	defer file.Close()
	var b strings.Builder
	if errors.Is(statErr, os.ErrNotExist) {
		b.WriteString(indexHeader)
	}
	summary := f.Daemon.Summary
	if summary == "" {
		summary = f.Pack.Summary
	}
	fmt.Fprintf(&b, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", filepath.Base(f.Path), f.At.Format(time.RFC3339Nano),
		f.Daemon.State, f.Daemon.Rule, f.Pack.State, f.Pack.Rule, strings.ReplaceAll(summary, "\t", " "))
	if _, err := file.WriteString(b.String()); err != nil {
		return fmt.Errorf("record: %w", err)
	}
	return nil
}

func orUnknown(s string) string {
	if s == "" {
		return "UNKNOWN"
	}
	return s
}
