package main

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/paneherd/paneherd/internal/demo"
)

// schedule is what a cycling player shows: each step's state, how long, in turn.
var schedule = []struct {
	state string // the demo screens' name, and the state a watcher should see
	hold  time.Duration
}{
	{"ready", 3 * time.Second},
	{"busy", 2 * time.Second},
	{"needs_confirmation", 2 * time.Second},
	{"busy", 2 * time.Second},
	{"error", 2 * time.Second},
}

// play runs in a benchmark pane: it draws a pack's real screens on the schedule (or one
// screen for ever, or a stream of output) and logs "unix-nanoseconds STATE" each time the
// screen it draws becomes a different state, right after drawing it.
func play(args []string) error {
	if len(args) != 4 {
		return fmt.Errorf("play LOG PACK MODE START (MODE: cycle, idle, busy, stream)")
	}
	logPath, pack, mode := args[0], args[1], args[2]
	var start int
	fmt.Sscan(args[3], &start)
	log, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	switch mode {
	case "stream":
		return stream()
	case "idle":
		frames, err := demo.Frames(pack, "ready")
		if err != nil {
			return err
		}
		draw(frames[0])
		select {}
	case "busy":
		frames, err := demo.Frames(pack, "busy")
		if err != nil {
			return err
		}
		for f := 0; ; f++ {
			draw(frames[f%len(frames)])
			time.Sleep(400 * time.Millisecond)
		}
	}
	for i := start; ; i++ {
		step := schedule[i%len(schedule)]
		frames, err := demo.Frames(pack, step.state)
		if err != nil {
			return err
		}
		end := time.Now().Add(step.hold)
		for f := 0; time.Now().Before(end); f++ {
			// A still screen (a prompt, a dialog, an error) is drawn once, as the CLIs
			// do; only a busy one animates.
			if f == 0 || len(frames) > 1 {
				draw(frames[f%len(frames)])
			}
			if f == 0 {
				fmt.Fprintf(log, "%d %s\n", time.Now().UnixNano(), strings.ToUpper(step.state))
			}
			time.Sleep(min(400*time.Millisecond, time.Until(end)))
		}
	}
}

func draw(frame string) {
	os.Stdout.WriteString("\x1b[H\x1b[2J" + frame)
}

// stream prints about 30 KB/s of build-log-like output for ever.
func stream() error {
	line := strings.Repeat("compiling module with a long name and some flags -O2 ", 5)[:250] + "\r\n"
	for n := 0; ; n++ {
		for i := 0; i < 3; i++ {
			fmt.Printf("%06d %s", n, line[:len(line)-8])
		}
		time.Sleep(25 * time.Millisecond)
	}
}
