package notify

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/tmux"
	"github.com/paneherd/paneherd/internal/tmux/tmuxtest"
)

// playerRig is a PATH holding stand-in players and tmux only, and XDG data directories holding a
// freedesktop sound theme or not.
type playerRig struct {
	t        *testing.T
	bin      string
	theme    string // the theme's sound file, "" for none
	realPath string // the test's own PATH, for the stand-ins' own commands
}

func newPlayerRig(t *testing.T, withTheme bool) *playerRig {
	t.Helper()
	r := &playerRig{t: t, bin: t.TempDir()}
	data := t.TempDir()
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	t.Setenv("XDG_DATA_DIRS", t.TempDir()+string(filepath.ListSeparator)+data)
	if withTheme {
		r.theme = filepath.Join(data, "sounds", "freedesktop", "stereo", "message-new-instant.oga")
		if err := os.MkdirAll(filepath.Dir(r.theme), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(r.theme, []byte("OggS"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// tmux too: the bell asks it for the clients.
	if tmuxPath, err := exec.LookPath("tmux"); err == nil {
		if err := os.Symlink(tmuxPath, filepath.Join(r.bin, "tmux")); err != nil {
			t.Fatal(err)
		}
	}
	r.realPath = os.Getenv("PATH")
	t.Setenv("PATH", r.bin)
	return r
}

// add puts a stand-in player on PATH: it appends its arguments, one call a line, to
// <name>.calls, copies its stdin to <name>.stdin, then runs tail.
func (r *playerRig) add(name, tail string) {
	r.t.Helper()
	script := fmt.Sprintf("#!/bin/sh\nPATH='%s'\necho \"$*\" >> '%s.calls'\ncat > '%s.stdin'\n%s\n",
		r.realPath, filepath.Join(r.bin, name), filepath.Join(r.bin, name), tail)
	if err := os.WriteFile(filepath.Join(r.bin, name), []byte(script), 0o755); err != nil {
		r.t.Fatal(err)
	}
}

// calls are the argument lines the stand-in name was run with.
func (r *playerRig) calls(name string) []string {
	b, err := os.ReadFile(filepath.Join(r.bin, name+".calls"))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		r.t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

func (r *playerRig) stdin(name string) []byte {
	b, _ := os.ReadFile(filepath.Join(r.bin, name+".stdin"))
	return b
}

func TestSoundChoosesThePlatformsPlayer(t *testing.T) {
	const bell = "terminal bell: "
	cases := []struct {
		name      string
		goos      string
		players   []string
		theme     bool
		describe  string // after the player's path; "" when the bell rings
		bell      string // Describe when the bell rings
		played    string // who plays, and its arguments
		playsTone bool
	}{
		{"pw-play first", "linux", []string{"aplay", "paplay", "pw-play"}, true, "/pw-play plays THEME", "", "pw-play THEME", false},
		{"paplay before aplay", "linux", []string{"aplay", "paplay"}, true, "/paplay plays THEME", "", "paplay THEME", false},
		{"aplay plays a tone, not Ogg", "linux", []string{"aplay"}, true, "/aplay plays a 200ms tone made by paneherd", "", "aplay -q", true},
		{"without a theme, aplay's tone", "linux", []string{"pw-play", "aplay"}, false, "/aplay plays a 200ms tone made by paneherd", "", "aplay -q", true},
		{"a player with nothing to play", "linux", []string{"pw-play"}, false, "", bell + "pw-play found, but no sound theme file (install sound-theme-freedesktop, or set @paneherd-notify-sound to a sound file)", "", false},
		{"no player", "linux", nil, true, "", bell + "no player found (install pipewire-bin/pulseaudio-utils/alsa-utils)", "", false},
		{"macOS: afplay and a system sound", "darwin", []string{"afplay", "pw-play"}, false, "/afplay plays /System/Library/Sounds/Glass.aiff", "", "afplay /System/Library/Sounds/Glass.aiff", false},
		{"macOS has no Linux player", "darwin", []string{"pw-play", "paplay", "aplay"}, true, "", bell + "no player found (afplay is not on PATH)", "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newPlayerRig(t, c.theme)
			for _, p := range c.players {
				r.add(p, "")
			}
			s, err := NewSound("on", c.goos, tmux.Server{})
			if err != nil {
				t.Fatal(err)
			}
			got, err := s.Describe(context.Background())
			want := c.bell
			if c.describe != "" {
				want = r.bin + strings.ReplaceAll(c.describe, "THEME", r.theme)
			}
			if err != nil || got != want {
				t.Fatalf("Describe = %q, %v; want %q", got, err, want)
			}
			if c.played == "" {
				return
			}
			if err := s.Send(context.Background(), Notification{Event: NeedsConfirmation, Critical: true}); err != nil {
				t.Fatal(err)
			}
			who, args, _ := strings.Cut(strings.ReplaceAll(c.played, "THEME", r.theme), " ")
			if calls := r.calls(who); len(calls) != 1 || calls[0] != args {
				t.Errorf("%s ran with %q, want [%q]", who, calls, args)
			}
			if tone := r.stdin(who); c.playsTone != bytes.Equal(tone, beep()) {
				t.Errorf("%s read %d bytes on stdin; tone wanted: %v", who, len(tone), c.playsTone)
			}
		})
	}
}

func TestSoundToneIsAWAV(t *testing.T) {
	b := beep()
	samples := int(toneLength.Seconds() * toneRate)
	if len(b) != 44+2*samples || string(b[:4]) != "RIFF" || string(b[8:16]) != "WAVEfmt " || string(b[36:40]) != "data" {
		t.Fatalf("tone: %d bytes, header %q", len(b), b[:44])
	}
	loud := false
	for i := 44; i < len(b); i += 2 {
		if v := int16(b[i]) | int16(b[i+1])<<8; v > 8000 {
			loud = true
		}
	}
	if !loud {
		t.Error("the tone is silent")
	}
}

func TestSoundFile(t *testing.T) {
	cases := []struct {
		name     string
		file     string // under a temp HOME
		players  []string
		describe string // "" for the bell
		bell     string
		args     string
	}{
		{"aplay plays a WAV", "ding.WAV", []string{"aplay"}, "/aplay plays FILE", "", "-q FILE"},
		{"aplay cannot play Ogg", "ding.oga", []string{"aplay"}, "", "terminal bell: aplay cannot play ding.oga (give it a .wav file, or install pipewire-bin/pulseaudio-utils/alsa-utils)", ""},
		{"paplay plays Ogg before aplay's turn", "ding.oga", []string{"aplay", "paplay"}, "/paplay plays FILE", "", "FILE"},
		{"pw-play plays anything", "ding.mp3", []string{"aplay", "paplay", "pw-play"}, "/pw-play plays FILE", "", "FILE"},
		{"no player", "ding.wav", nil, "", "terminal bell: no player found (install pipewire-bin/pulseaudio-utils/alsa-utils)", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newPlayerRig(t, true)
			for _, p := range c.players {
				r.add(p, "")
			}
			home := t.TempDir()
			t.Setenv("HOME", home)
			file := filepath.Join(home, c.file)
			if err := os.WriteFile(file, []byte("RIFF"), 0o644); err != nil {
				t.Fatal(err)
			}
			s, err := NewSound("~/"+c.file, "linux", tmux.Server{})
			if err != nil {
				t.Fatal(err)
			}
			want := c.bell
			if c.describe != "" {
				want = r.bin + strings.ReplaceAll(c.describe, "FILE", file)
			}
			if got, err := s.Describe(context.Background()); err != nil || got != want {
				t.Fatalf("Describe = %q, %v; want %q", got, err, want)
			}
			if c.args == "" {
				return
			}
			if err := s.Send(context.Background(), Notification{Event: Finished}); err != nil {
				t.Fatal(err)
			}
			who := c.players[len(c.players)-1]
			if calls := r.calls(who); len(calls) != 1 || calls[0] != strings.ReplaceAll(c.args, "FILE", file) {
				t.Errorf("%s ran with %q", who, calls)
			}
			if err := os.Remove(file); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Describe(context.Background()); err == nil || !strings.Contains(err.Error(), "cannot read "+file) {
				t.Errorf("Describe of a file gone since: %v", err)
			}
		})
	}
}

func TestSoundFileThatCannotBePlayedIsOneLine(t *testing.T) {
	dir := t.TempDir()
	locked := filepath.Join(dir, "locked.wav")
	if err := os.WriteFile(locked, []byte("RIFF"), 0o000); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ name, setting, says string }{
		{"missing", filepath.Join(dir, "gone.wav"), "cannot read " + filepath.Join(dir, "gone.wav") + " (no such file or directory)"},
		{"a directory", dir, dir + " is not a file"},
		{"relative", "sounds/ding.wav", "sounds/ding.wav is not an absolute path"},
		{"off", "off", `"off" plays nothing`},
		{"empty", "", `"" plays nothing`},
	}
	if os.Geteuid() != 0 { // root reads any file
		cases = append(cases, struct{ name, setting, says string }{"unreadable", locked, "cannot read " + locked + " (permission denied)"})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := NewSound(c.setting, "linux", tmux.Server{})
			if err == nil || !strings.Contains(err.Error(), c.says) || !strings.Contains(err.Error(), "set @paneherd-notify-sound") ||
				strings.Contains(err.Error(), "\n") {
				t.Errorf("NewSound(%q) = %v; want one line saying %q and what to set", c.setting, err, c.says)
			}
		})
	}
}

func TestSoundPlaysOnlyWhatNeedsAPersonOrFinished(t *testing.T) {
	r := newPlayerRig(t, true)
	r.add("pw-play", "")
	s, err := NewSound("on", "linux", tmux.Server{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[Event]bool{NeedsConfirmation: true, Failed: true, Finished: true, Supervisor: true, Test: true}
	for _, ev := range append(Events, Test) {
		before := len(r.calls("pw-play"))
		err := s.Send(context.Background(), Notification{Event: ev})
		if played := len(r.calls("pw-play")) > before; played != want[ev] {
			t.Errorf("%s: played = %v, want %v", ev, played, want[ev])
		}
		// What plays nothing must not count as delivered.
		if want[ev] && err != nil || !want[ev] && !errors.Is(err, ErrSkipped) {
			t.Errorf("%s: Send = %v, want ErrSkipped only where nothing plays", ev, err)
		}
	}
}

func TestSoundWithoutPlayerOrClientSaysBoth(t *testing.T) {
	h := tmuxtest.New(t)
	h.NewSession("work", "")
	newPlayerRig(t, true)
	s, err := NewSound("on", "linux", h.Server)
	if err != nil {
		t.Fatal(err)
	}
	err = s.Send(context.Background(), Notification{Event: NeedsConfirmation})
	if !errors.Is(err, ErrNoClient) || !strings.Contains(err.Error(), "sound: terminal bell (no player found (install") {
		t.Errorf("Send = %v", err)
	}
}

// TestSoundRingsTheBellOfAnAttachedClient attaches a real client from a pane of a second
// server and records that pane's output: what the person's terminal receives.
func TestSoundRingsTheBellOfAnAttachedClient(t *testing.T) {
	h := tmuxtest.New(t)
	h.NewSession("work", "")
	viewer := tmuxtest.New(t)
	viewer.Run("new-session", "-d", "-s", "view", "-x", "100", "-y", "30",
		fmt.Sprintf("TMUX= exec tmux -S '%s' attach -t work", h.Server.Socket))
	tmuxtest.WaitFor(t, 30*time.Second, func() bool { return h.Run("list-clients", "-F", "x") != "" })
	seen := filepath.Join(viewer.Dir, "seen")
	viewer.Run("pipe-pane", "-t", "view", "cat > "+seen)
	bells := func() int { b, _ := os.ReadFile(seen); return bytes.Count(b, []byte{7}) }
	waitBells := func(n int) {
		t.Helper()
		if !tmuxtest.Poll(10*time.Second, func() bool { return bells() >= n }) || bells() != n {
			t.Fatalf("the terminal got %d bells, want %d", bells(), n)
		}
	}

	r := newPlayerRig(t, true)
	s, err := NewSound("on", "linux", h.Server)
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range []Event{Stalled, Exited} {
		if err := s.Send(context.Background(), Notification{Event: ev}); !errors.Is(err, ErrSkipped) {
			t.Fatalf("%s: %v, want ErrSkipped", ev, err)
		}
	}
	if err := s.Send(context.Background(), Notification{Event: NeedsConfirmation}); err != nil {
		t.Fatal(err)
	}
	waitBells(1)

	// What aplay says on a machine without a sound card.
	r.add("aplay", "echo \"ALSA lib confmisc.c:855:(parse_card) cannot find card '0'\" >&2\n"+
		"echo 'aplay: main:831: audio open error: No such file or directory' >&2; exit 1")
	s, err = NewSound("on", "linux", h.Server)
	if err != nil {
		t.Fatal(err)
	}
	err = s.Send(context.Background(), Notification{Event: Failed})
	if err == nil || !strings.Contains(err.Error(), "sound: aplay: exit status 1: aplay: main:831: audio open error") ||
		!strings.HasSuffix(err.Error(), "; rang the terminal bell instead") {
		t.Errorf("Send with a failing player = %v", err)
	}
	waitBells(2)
}

// TestRingBellsOnlyToTerminals: a bell goes only to a terminal device, never to a
// control client's: a file or a fifo at a client's tty path gets nothing.
func TestRingBellsOnlyToTerminals(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	reader, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err = ringBells(ctx, tmux.Server{}, []Client{{TTY: file}, {TTY: fifo}})
	if err == nil || strings.Count(err.Error(), "is not a terminal") != 2 {
		t.Errorf("ringBells = %v, want both refused as not terminals", err)
	}
	if b, _ := os.ReadFile(file); len(b) > 0 {
		t.Errorf("the file got %q", b)
	}
	if n, _ := reader.Read(make([]byte, 8)); n > 0 {
		t.Errorf("the fifo got %d bytes", n)
	}
	if err := ringBells(ctx, tmux.Server{}, []Client{{TTY: file, Control: true}}); !errors.Is(err, ErrNoClient) {
		t.Errorf("ringBells of a control client = %v, want ErrNoClient", err)
	}
}

// TestRingBellsBetweenTmuxsSequences: a bell rung while tmux draws a flood of output to
// the client lands between tmux's sequences, never inside one (where a BEL ends an OSC
// string early), or waits for a break in the output. Rung at any moment, about one in
// fifteen landed inside.
func TestRingBellsBetweenTmuxsSequences(t *testing.T) {
	h := tmuxtest.New(t)
	pane := h.NewSession("work", "exec sleep 1000")
	c, outer := attachInOuterTmux(t, h, "work")
	ring := func(ctx context.Context) error { return ringBells(ctx, h.Server, []Client{c}) }
	flood, bursts := sendDuringOutput(t, h, pane, ring)
	h.Run("respawn-pane", "-k", "-t", pane, "echo calm; exec sleep 1000")
	if err := ring(context.Background()); err != nil {
		t.Fatalf("ring after the flood: %v", err)
	}
	rung := flood + bursts + 1
	outer.sameScreen(t, h, pane)
	got := outer.record.bytes(t)
	if n, inside := onBoundaries(got, []byte{7}); n != rung || len(inside) > 0 {
		t.Errorf("%d rung, %d arrived, %d inside another sequence or character (at %v)", rung, n, len(inside), inside)
		for _, at := range inside {
			t.Logf("at %d: %q", at, got[max(0, at-80):at+20])
		}
	}
}

// TestRingBellsPastAStuckTerminal: a terminal that reads nothing (stopped, a hung SSH
// link) keeps its bell until the deadline, but not the bells of the others.
func TestRingBellsPastAStuckTerminal(t *testing.T) {
	h := tmuxtest.New(t)
	h.NewSession("flood", flood)
	h.NewSession("calm", "")
	stoppedTerminal(t, h, "flood")
	person := inScript(t, h, attachCommand(h, "calm", "TERM=xterm-256color"))
	var clients []Client
	var err error
	if !tmuxtest.Poll(10*time.Second, func() bool { clients, err = h.Server.Clients(context.Background()); return len(clients) == 2 }) {
		t.Fatalf("clients = %+v, %v; want the stuck one and the person's", clients, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	start := time.Now()
	if err := ringBells(ctx, h.Server, clients); err != nil || time.Since(start) > 3*time.Second {
		t.Errorf("ringBells = %v after %s, want one rung within the deadline", err, time.Since(start))
	}
	person.waitFor(t, []byte{7})
}
